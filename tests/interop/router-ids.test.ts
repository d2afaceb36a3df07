import { afterAll, beforeAll, describe, expect, test } from "@jest/globals";
import { createReplyReader, type ReplyChange } from "../../router/core/reply.js";
import type { RunningRouter } from "../../router/index.js";
import { openStream, rpc, type Json } from "../helpers/rpc.js";
import { testRouter } from "../helpers/router.js";
import { CLIENTS, expectRouterIdsOnly } from "./clients.js";
import { SdkAgent } from "./sdk-agent.js";

/**
 * CONTRACT 9 at the upstream edge: whatever dialect a client speaks and whatever dialect the upstream
 * agent speaks, the ids a client receives are the router's. An @a2a-js/sdk server that keeps its own
 * contexts (so both its task and its context ids differ from the router's) sits behind the router, spoken
 * to in v1.0 and in v0.3; v0.1, v0.3 and v1.0 clients send and stream to it, and nothing they receive
 * (results, every stream event, tasks/get) names the agent's ids. Every status message also says its
 * text kind.
 */

let v1: SdkAgent;
let v1Plain: SdkAgent;
let v03: SdkAgent;
let router: RunningRouter;

beforeAll(async () => {
  v1 = await new SdkAgent({ streaming: true, ownContext: true }).start();
  v1Plain = await new SdkAgent({ streaming: false, ownContext: true }).start();
  v03 = await new SdkAgent({ streaming: true, legacyCompat: true, ownContext: true }).start();
  router = await testRouter({
    config: {
      agents: [
        { id: "own-v10", url: v1.url },
        { id: "own-v10-plain", url: v1Plain.url },
        { id: "own-v03", url: v03.url, protocol: "0.3" },
      ],
    },
  });
});

afterAll(async () => {
  await router.close();
  await Promise.all([v1.stop(), v1Plain.stop(), v03.stop()]);
});

const upstreams = () =>
  [
    ["v1.0", v1, "own-v10"],
    ["v1.0 without streaming", v1Plain, "own-v10-plain"],
    ["v0.3", v03, "own-v03"],
  ] as const;

describe.each(["v1.0", "v1.0 without streaming", "v0.3"] as const)("an SDK agent spoken to in %s, with its own task and context ids", (spoken) => {
  const pick = () => upstreams().find(([d]) => d === spoken)!;

  describe.each(["v0.1", "v0.3", "v1.0"] as const)("a %s client", (dialect) => {
    const client = CLIENTS[dialect];

    test("send: the result and tasks/get carry the router's ids only", async () => {
      const [, agent, agentId] = pick();
      const before = agent.tasks.length;
      const sent = await rpc(router.url, client.send, client.params("hello"), { path: `/agents/${agentId}`, headers: client.headers });
      expect(sent.error).toBeUndefined();
      const taskId = client.taskIdOf(sent.result);
      const got = await rpc(router.url, client.get, { id: taskId }, { path: `/agents/${agentId}`, headers: client.headers });
      expect(got.error).toBeUndefined();
      expectRouterIdsOnly(agent, before, [sent, got]);
    });

    test("stream: every event names the router's ids only, and every status message says its text kind", async () => {
      const [, agent, agentId] = pick();
      const before = agent.tasks.length;
      const s = await openStream(router.url, client.stream, client.params("hello"), { path: `/agents/${agentId}`, headers: client.headers });
      const events = await s.all();
      expect(events.length).toBeGreaterThanOrEqual(2);
      const results = events.map((e) => e.data.result as Json);
      const taskId = client.taskIdOf(results[0]!);
      const got = await rpc(router.url, client.get, { id: taskId }, { path: `/agents/${agentId}`, headers: client.headers });
      expectRouterIdsOnly(agent, before, [events.map((e) => e.data), got]);

      // v1.0 nests a status update under `statusUpdate`; its opening Task has no `status` at the top.
      const statuses = results.map((r) => r.statusUpdate ?? r).filter((r) => r.status?.message !== undefined);
      // A non-streaming agent's one answer is its final status; a streaming one says "working on" first.
      const kinds = spoken.includes("without streaming") ? ["snapshot"] : ["progress", "snapshot"];
      expect(statuses.map((r) => r.metadata?.textKind)).toEqual(kinds);
    });
  });

  test("a follow-up turn (input-required, then the answer) keeps the router's ids, v1.0 client", async () => {
    const [, agent, agentId] = pick();
    const before = agent.tasks.length;
    const v10 = CLIENTS["v1.0"];
    const first = await rpc(router.url, "SendMessage", v10.params("ask"), { path: `/agents/${agentId}`, headers: v10.headers });
    expect(first.result.task.status.state).toBe("TASK_STATE_INPUT_REQUIRED");
    const taskId = first.result.task.id;
    const s = await openStream(router.url, "SendStreamingMessage", v10.params("the red one", taskId), { path: `/agents/${agentId}`, headers: v10.headers });
    const events = await s.all();
    expect(events.at(-1)!.data.result.statusUpdate.status.state).toBe("TASK_STATE_COMPLETED");
    expect(events.every((e) => (e.data.result.task?.id ?? e.data.result.statusUpdate?.taskId ?? e.data.result.artifactUpdate?.taskId) === taskId)).toBe(true);
    expectRouterIdsOnly(agent, before, [first, events.map((e) => e.data)]);
  });
});

describe("the reply model over an upstream's turn", () => {
  test("a renderer following core/reply.ts ends with the answer and never shows the progress line in it", async () => {
    const s = await openStream(router.url, "tasks/sendSubscribe", CLIENTS["v0.1"].params("hello"), { path: "/agents/own-v10" });
    const events = await s.all();
    const taskId = events[0]!.data.result.id as string;
    const reader = createReplyReader();
    const changes: ReplyChange[] = [];
    for await (const event of router.engine.events(taskId, 0)) changes.push(...reader.feed(event));
    expect(reader.ended).toBe(true);
    expect(reader.answer).toBe("done");
    expect(changes.find((c) => c.type === "status")).toMatchObject({ text: "working on: hello", textKind: "progress" });
    const shownAsAnswer = changes.flatMap((c) => (c.type === "answer" ? [c.delta] : c.type === "answer-reset" ? [c.text] : [])).join("|");
    expect(shownAsAnswer).not.toContain("working on");
  });
});
