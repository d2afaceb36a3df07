import { afterAll, afterEach, beforeAll, describe, expect, test } from "@jest/globals";
import { randomUUID } from "node:crypto";
import { connectAgent, type Agent, type Message } from "../../agents/sdk/index.js";
import type { RunningRouter } from "../../router/index.js";
import { getJson, rpc } from "../helpers/rpc.js";
import { testRouter } from "../helpers/router.js";
import { memoryLogger } from "./helpers.js";

/** The SDK speaks the hub's protocol 2: the client's A2A v1.0 message in `ctx.message`, card extensions, rejections. */

let router: RunningRouter;
const agents: Agent[] = [];
const V10 = { "A2A-Version": "1.0" };
const EXTENSION = "https://ext.example/trace/v1";

beforeAll(async () => {
  router = await testRouter({ eliza: false });
});
afterEach(async () => {
  await Promise.all(agents.splice(0).map((a) => a.close()));
});
afterAll(() => router.close());

function sdkAgent(name: string, card?: Record<string, unknown>): Agent {
  const agent = connectAgent({ url: `${router.url}/hub`, name, reconnect: false, logger: memoryLogger(), ...(card && { card }) });
  agents.push(agent);
  return agent;
}

describe("an SDK agent on protocol 2", () => {
  test("ctx.message is the client's v1.0 message with every id; v1.0 and first-version parts go out as v1.0 parts", async () => {
    const agent = sdkAgent("ids");
    let seen: Message | undefined;
    agent.skill({ name: "look", description: "looks at the message" }, async (text, ctx) => {
      seen = ctx.message;
      await ctx.artifact({ artifactId: "both", parts: [{ data: [1, 2] }, { type: "text", text: "legacy" }] });
      return `saw ${text} in ${ctx.sessionId === ctx.message.contextId ? "its context" : "another context"}`;
    });
    await agent.ready;
    const message = { messageId: "m-7", role: "ROLE_USER", parts: [{ text: "this" }], referenceTaskIds: ["t-0"], extensions: [EXTENSION] };
    const result = (await rpc(router.url, "SendMessage", { message }, { path: "/agents/ids", headers: V10 })).result.task;
    expect(seen).toEqual({ ...message, taskId: result.id, contextId: result.contextId });
    expect(result.status.message.parts).toEqual([{ text: "saw this in its context" }]);
    expect(result.artifacts).toEqual([expect.objectContaining({ artifactId: "both", parts: [{ data: [1, 2] }, { text: "legacy" }] })]);
  });

  test("a required extension: declared on the card, and a message without it is rejected with an error", async () => {
    const agent = sdkAgent("strict", { capabilities: { extensions: [{ uri: EXTENSION, required: true }] } });
    agent.skill({ name: "serve", description: "needs the extension" }, async (_text, ctx) =>
      ctx.message.extensions?.includes(EXTENSION) ? "served" : { state: "rejected", text: `requires ${EXTENSION}` },
    );
    await agent.ready;
    const card = await getJson(`${router.url}/agents/strict/.well-known/agent-card.json`);
    expect(card.capabilities.extensions).toEqual([{ uri: EXTENSION, required: true }]);
    const send = (extensions?: string[]) =>
      rpc(
        router.url,
        "SendMessage",
        { message: { messageId: randomUUID(), role: "ROLE_USER", parts: [{ text: "x" }], ...(extensions && { extensions }) } },
        { path: "/agents/strict", headers: V10 },
      );
    // A turn that ends rejected before anything else is the request's rejection: the send's error.
    const refused = await send();
    expect(refused.error).toMatchObject({ code: -32602, message: `Invalid params: agent strict rejected the request: requires ${EXTENSION}` });
    expect((await send([EXTENSION])).result.task.status.state).toBe("TASK_STATE_COMPLETED");
  });
});
