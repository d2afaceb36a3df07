import { afterAll, beforeAll, expect, test } from "@jest/globals";
import type { RunningRouter } from "../../router/index.js";
import { HUB_DEFAULTS } from "../../hub/index.js";
import { testRouter } from "../helpers/router.js";
import { openStream, userMessage } from "../helpers/rpc.js";
import { RawAgent } from "../helpers/ws-agent.js";

/** A hub frame over HUB_DEFAULTS.maxPayload (16 MiB) drops the agent (close 1009), failing its task with a reason. */

let router: RunningRouter;

beforeAll(async () => {
  router = await testRouter();
});

afterAll(async () => {
  await router.close();
});

test("a frame over 16 MiB closes the socket with 1009 and fails the agent's task, saying why", async () => {
  const agent = new RawAgent(router.url);
  await agent.open();
  await agent.register("big-talker");
  const code = new Promise<number>((resolve) => agent.ws.once("close", (c) => resolve(c)));
  const stream = await openStream(router.url, "tasks/sendSubscribe", { id: "big-1", message: userMessage("go"), metadata: { agent: "big-talker" } });
  const execute = await agent.waitFor((f) => f.method === "task.execute");
  const text = "x".repeat(HUB_DEFAULTS.maxPayload + 1);
  agent.ws.send(
    JSON.stringify({
      jsonrpc: "2.0",
      method: "task.status",
      params: { task_id: execute.params.id, status: { state: "working", message: { role: "agent", parts: [{ type: "text", text }] } }, final: false },
    }),
  );
  expect(await code).toBe(1009);
  const events = await stream.all();
  const last = events.at(-1)!.data.result;
  expect(last.status.state).toBe("failed");
  expect(last.status.message.parts[0].text).toMatch(/larger than 16777216 bytes/);
});
