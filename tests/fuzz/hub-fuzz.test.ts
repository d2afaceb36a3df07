import { afterAll, beforeAll, expect, test } from "@jest/globals";
import fc from "fast-check";
import type { RunningRouter } from "../../router/index.js";
import { testRouter } from "../helpers/router.js";
import { RawAgent } from "../helpers/ws-agent.js";
import { FUZZ_SEED, hubFrame, RECENT_TASK } from "./arbitraries.js";
import { checkResponse } from "./checks.js";

/**
 * Hub frame fuzzing (CONTRACT 12): an agent sends mutated and malformed frames, some aimed at tasks the hub
 * really gave it. Each frame is followed by a heartbeat probe; every frame the hub sent before the probe's
 * answer is checked: well-formed, no -32603, no internals. The connection stays up and the hub stays usable.
 */

const HUB_RUNS = Number(process.env.FUZZ_HUB_RUNS ?? 12_000);

let router: RunningRouter;
let agent: RawAgent;
/** Tasks the hub gave the agent whose client call has not returned. */
const active = new Map<string, { done: boolean }>();
const calls: Promise<unknown>[] = [];

beforeAll(async () => {
  router = await testRouter({ eliza: false });
  agent = new RawAgent(router.url);
  expect((await agent.register("fuzz-agent")).result).toMatchObject({ registered: true });
});

afterAll(async () => {
  await agent.close();
  await router.close();
  await Promise.allSettled(calls);
});

/** Starts a task on the fuzz agent and resolves with its id once the hub has handed it over. */
async function newTask(n: number): Promise<string> {
  const execute = agent.nextTask();
  const state = { done: false };
  const call = fetch(`${router.url}/rpc`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: n,
      method: "tasks/send",
      params: { id: `hub-fuzz-${n}`, message: { role: "user", parts: [{ type: "text", text: "go" }] }, metadata: { agent: "fuzz-agent" } },
    }),
  })
    .then((r) => r.json())
    .finally(() => (state.done = true));
  calls.push(call.catch(() => undefined));
  const frame = await execute;
  const id = String(frame.params.id);
  active.set(id, state);
  return id;
}

test(`${HUB_RUNS} hub frames: answered well, no internals, the connection and the hub stay up`, async () => {
  let probes = 0;
  let started = 0;
  await fc.assert(
    fc.asyncProperty(hubFrame, fc.nat(), async (frame, pick) => {
      for (const [id, s] of active) if (s.done) active.delete(id);
      if (active.size < 2) await newTask(++started);
      const ids = [...active.keys()];
      const text = frame.split(RECENT_TASK).join(ids[pick % ids.length]!);
      const from = agent.frames.length;
      const probeId = `probe-${++probes}`;
      const answered = agent.waitFor((f) => f.id === probeId);
      agent.ws.send(text);
      agent.ws.send(JSON.stringify({ jsonrpc: "2.0", id: probeId, method: "heartbeat", params: {} }));
      await Promise.race([answered, agent.closed.then(() => Promise.reject(new Error(`the hub closed the connection after: ${text.slice(0, 300)}`)))]);
      for (const f of agent.frames.slice(from)) {
        if (typeof f.method === "string") continue; // the hub's own requests and notifications (heartbeat_ack, task.execute, ...)
        checkResponse(f, `hub answer to ${text.slice(0, 200)}`);
      }
      agent.frames.length = 0;
    }),
    { seed: FUZZ_SEED, numRuns: HUB_RUNS, endOnFailure: true },
  );
  expect(started).toBeGreaterThan(1);
}, 300_000);

test("the hub still serves a task end to end afterwards", async () => {
  const id = await newTask(1_000_000);
  agent.notify("task.complete", {
    task_id: id,
    status: { state: "completed", message: { role: "agent", parts: [{ type: "text", text: "done" }] } },
    final: true,
  });
  const answer = (await calls[calls.length - 1]) as any;
  expect(answer.result.status.state).toBe("completed");
  expect((await fetch(`${router.url}/healthz`)).status).toBe(200);
});
