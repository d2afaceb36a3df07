import { afterAll, beforeAll, describe, expect, test } from "@jest/globals";
import type { RunningRouter } from "../../router/index.js";
import { scriptedAgent } from "../helpers/agents.js";
import { testRouter } from "../helpers/router.js";
import { until } from "../helpers/until.js";
import { type Json, type RawClient, rawClient, userMessage } from "./raw-client.js";

/**
 * A gRPC client that stops reading (CONTRACT 4): the router waits on the transport instead of buffering, the
 * agent is not slowed (its task completes while nothing is read), and once the client reads again it gets
 * every event, in order, none twice (served from the log past the stream's byte bound).
 */

const CHUNKS = 300;
const CHUNK = "x".repeat(16 * 1024);

let router: RunningRouter;
let client: RawClient;

beforeAll(async () => {
  const big = scriptedAgent("big", async function* () {
    for (let i = 1; i <= CHUNKS; i++) {
      yield { kind: "artifact", artifact: { artifactId: "a", name: "big", parts: [{ kind: "text", text: `${i}:${CHUNK}` }] }, append: i > 1 };
    }
    yield { kind: "status", status: { state: "completed" }, final: true };
  });
  router = await testRouter({ eliza: false, hostedAgents: [big], config: { grpc: { port: 0 }, limits: { streamBufferBytes: 256 * 1024 } } });
  client = rawClient(`127.0.0.1:${router.grpcPort}`);
});

afterAll(async () => {
  client.close();
  await router.close();
});

describe("a gRPC stream whose client stops reading", () => {
  test("the task completes meanwhile, and every event then arrives once, in order", async () => {
    const s = client.stream("SendStreamingMessage", { tenant: "big", message: userMessage("go") }, {}, { paused: true });
    await s.headers;
    // ListTasks leaves the artifacts out: the task with its 4.8 MB artifact is past a gRPC client's default 4 MiB.
    const state = async () => (((await client.unary("ListTasks", { tenant: "big" })).tasks as Json[] | undefined)?.[0]?.status as Json | undefined)?.state;
    await until(async () => (await state()) === "TASK_STATE_COMPLETED");
    expect(s.received).toHaveLength(0);
    s.resume();
    const all = await s.messages;
    expect(all).toHaveLength(1 + CHUNKS + 1);
    const indexes = all
      .slice(1, -1)
      .map((m) => Number(String(((m.artifactUpdate as Json).artifact as { parts: Array<{ text: string }> }).parts[0]!.text).split(":")[0]));
    expect(indexes).toEqual(Array.from({ length: CHUNKS }, (_, i) => i + 1));
    expect((all.at(-1)!.statusUpdate as Json).status).toMatchObject({ state: "TASK_STATE_COMPLETED" });
  });
});
