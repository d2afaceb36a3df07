import { afterAll, beforeAll, describe, expect, test } from "@jest/globals";
import type { RunningRouter } from "../../router/index.js";
import { getJson, openStream, rpc, type Json } from "../helpers/rpc.js";
import { testRouter } from "../helpers/router.js";
import { CLIENTS } from "../interop/clients.js";
import { until } from "../interop/helpers.js";
import { SdkAgent } from "../interop/sdk-agent.js";

/**
 * The bounds on an upstream agent's answers hold over gRPC as over HTTP (they are the upstream connector's,
 * not a binding's): one message past `maxAnswerBytes` fails the turn saying so, and a stream silent for
 * `limits.upstreamIdleMs` is given up. Both lowered here to keep the test small and short. At shutdown the
 * router tells a gRPC agent to stop the turns it ended, as it tells any agent.
 */

const BOUND = 64 * 1024;
const IDLE_MS = 1500;
let agent: SdkAgent;
let router: RunningRouter;

beforeAll(async () => {
  agent = await new SdkAgent({ streaming: true, binding: "GRPC" }).start();
  router = await testRouter({ config: { agents: [{ id: "grpc", url: agent.url }] }, upstream: { maxAnswerBytes: BOUND } });
  await online(router);
});

const online = (r: RunningRouter) => until(async () => (await getJson(`${r.url}/agents`)).agents.every((a: Json) => a.online), "the agent to be online");

afterAll(async () => {
  await router.close();
  await agent.stop();
});

const send = (text: string, to = router) => rpc(to.url, "tasks/send", CLIENTS["v0.1"].params(text), { path: "/agents/grpc" });
const textOf = (task: Json) => (task.status?.message?.parts ?? []).map((p: Json) => p.text).join("");

describe("bounds on a gRPC agent's answers", () => {
  test("a message past the bound fails the turn, naming the bound and the rpc; smaller ones pass", async () => {
    const big = await send("x".repeat(BOUND * 3));
    expect(big.result.status.state).toBe("failed");
    expect(textOf(big.result)).toBe(`Upstream agent grpc sent an answer of more than ${BOUND} bytes on SendStreamingMessage`);
    const fine = await send("y".repeat(BOUND / 4));
    expect(fine.result.status.state).toBe("completed");
  });

  test("a stream silent past the idle limit is given up", async () => {
    // A router of its own: the other turns must not race a short idle limit on a busy machine.
    const impatient = await testRouter({ config: { agents: [{ id: "grpc", url: agent.url }], limits: { upstreamIdleMs: IDLE_MS } } });
    try {
      await online(impatient);
      const silent = await send("hang", impatient);
      expect(silent.result.status.state).toBe("failed");
      expect(textOf(silent.result)).toBe(`Upstream agent grpc sent nothing for ${IDLE_MS} ms; its stream was given up`);
    } finally {
      await impatient.close();
    }
  });
});

describe("shutdown", () => {
  test("a router that closes cancels the gRPC agent's running task on the agent's own id", async () => {
    const closing = await testRouter({ config: { agents: [{ id: "grpc", url: agent.url }] } });
    await online(closing);
    const s = await openStream(closing.url, "tasks/sendSubscribe", CLIENTS["v0.1"].params("hang"), { path: "/agents/grpc" });
    // Once the agent's `working` status is through, the router knows the agent's task id.
    for (let e = await s.next(); e && textOf(e.data.result) !== "working on: hang"; e = await s.next());
    const theirs = agent.tasks.at(-1)!.taskId;
    await closing.close();
    await until(() => agent.canceled.includes(theirs), "the agent's executor to cancel");
    expect(agent.calls.filter((c) => c.method === "CancelTask").at(-1)!.params.id).toBe(theirs);
  });
});
