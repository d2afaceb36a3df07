import { afterAll, beforeAll, describe, expect, test } from "@jest/globals";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { RunningRouter } from "../../router/index.js";
import { agentText } from "../../router/core/model.js";
import { scriptedAgent } from "../helpers/agents.js";
import { openStream, rpc, userMessage, type Json, type SseStream } from "../helpers/rpc.js";
import { testRouter } from "../helpers/router.js";

/**
 * Faults: clients that drop their stream at random points and resume with Last-Event-ID, 1,000 drops in all,
 * over several tasks whose agents are still streaming (so resumes hit the live fan-out, the log, and the switch
 * between them). Every client must end with exactly seq 1..n once, in order, each payload identical to the
 * log's. The randomness is seeded (FAULT_SEED to replay a failure; the seed is in every assertion message).
 */

const SEED = Number(process.env.FAULT_SEED ?? 20261123);
const TASKS = 8;
/** Events per task: EVENTS_PER_TASK - 1 artifact chunks, then the final status. */
const EVENTS_PER_TASK = 400;
const CLIENTS_PER_TASK = 5;
const DROPS_PER_CLIENT = 25;

/** mulberry32: a tiny seeded PRNG, so a failing run can be replayed exactly. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** `count` distinct drop points in 1..max, ascending: the client drops right after reading that many events. */
function dropPoints(rand: () => number, count: number, max: number): number[] {
  const points = new Set<number>();
  while (points.size < count) points.add(1 + Math.floor(rand() * max));
  return [...points].sort((a, b) => a - b);
}

/** A chunk whose text depends on the task and the index, with a varying size, so payloads can be told apart. */
function chunkText(task: number, i: number): string {
  return `t${task}:${i}:${"x".repeat((i * 7 + task) % 40)};`;
}

const dir = mkdtempSync(join(tmpdir(), "a2a-faults-drops-"));
let router: RunningRouter;

beforeAll(async () => {
  // A pacing agent: a short pause every few chunks keeps tasks streaming while clients drop and resume.
  const agent = scriptedAgent("pacer", async function* (ctx) {
    const task = Number(ctx.message.parts.map((p) => (p.kind === "text" ? p.text : "")).join(""));
    for (let i = 1; i < EVENTS_PER_TASK; i++) {
      if (i % 25 === 0) await new Promise((r) => setTimeout(r, 2));
      yield { kind: "artifact", artifact: { artifactId: "out", name: "out", parts: [{ kind: "text", text: chunkText(task, i) }] }, append: i > 1 };
    }
    yield { kind: "status", status: { state: "completed", message: agentText(`task ${task} done`) }, final: true };
  });
  router = await testRouter({
    store: `sqlite:${join(dir, "router.db")}`,
    eliza: false,
    hostedAgents: [agent],
    // Small buffers and pages: lagging streams fall back to the log and page through it often.
    tuning: { subscriberCapacity: 8, logPageSize: 32 },
  });
});

afterAll(async () => {
  await router?.close();
  rmSync(dir, { recursive: true, force: true });
});

interface Received {
  seq: number;
  result: Json;
}

/**
 * One client: reads until each drop point, drops the connection mid-stream, resubscribes with the last id it
 * saw; after the last drop it reads to the end of the stream. Returns every event it was given and its drops.
 */
async function dropAndResume(url: string, taskId: string, first: () => Promise<SseStream>, points: number[]): Promise<{ got: Received[]; drops: number }> {
  const got: Received[] = [];
  let drops = 0;
  let stream = await first();
  for (const point of [...points, Infinity]) {
    for (;;) {
      if (got.length >= point) break;
      const e = await stream.next();
      if (!e) break;
      if (e.id === undefined) throw new Error(`task ${taskId}: an event without an id: ${JSON.stringify(e.data)}`);
      got.push({ seq: Number(e.id), result: e.data.result });
    }
    if (point === Infinity) break;
    stream.abort();
    drops++;
    const last = got[got.length - 1]!.seq;
    stream = await openStream(url, "tasks/resubscribe", { id: taskId }, { headers: { "last-event-id": String(last) } });
  }
  stream.abort();
  return { got, drops };
}

describe("faults: client drops", () => {
  test(`${TASKS * CLIENTS_PER_TASK * DROPS_PER_CLIENT} random drops resumed with Last-Event-ID: nothing missing, nothing duplicated`, async () => {
    const rand = prng(SEED);
    const clients: Array<Promise<{ taskId: string; got: Received[]; drops: number }>> = [];
    for (let t = 0; t < TASKS; t++) {
      const taskId = `drops-${SEED}-${t}`;
      for (let c = 0; c < CLIENTS_PER_TASK; c++) {
        // Drop points strictly before the final event, so each client drops exactly DROPS_PER_CLIENT times.
        const points = dropPoints(rand, DROPS_PER_CLIENT, EVENTS_PER_TASK - 1);
        // The first client starts the task; the others join at once from the start of its log.
        const first =
          c === 0
            ? () => openStream(router.url, "tasks/sendSubscribe", { id: taskId, message: userMessage(String(t)), metadata: { agent: "pacer" } })
            : async () => {
                await waitForTask(taskId);
                return openStream(router.url, "tasks/resubscribe", { id: taskId }, { headers: { "last-event-id": "0" } });
              };
        clients.push(dropAndResume(router.url, taskId, first, points).then((r) => ({ taskId, ...r })));
      }
    }
    const results = await Promise.all(clients);

    const where = `(FAULT_SEED=${SEED})`;
    const expected = Array.from({ length: EVENTS_PER_TASK }, (_, i) => i + 1);
    expect(results.reduce((n, r) => n + r.drops, 0)).toBe(TASKS * CLIENTS_PER_TASK * DROPS_PER_CLIENT);
    for (let t = 0; t < TASKS; t++) {
      const taskId = `drops-${SEED}-${t}`;
      // The log as a fresh client replays it, and the task as tasks/get reports it.
      const replay = await (await openStream(router.url, "tasks/resubscribe", { id: taskId }, { headers: { "last-event-id": "0" } })).all();
      expect(replay.map((e) => Number(e.id))).toEqual(expected);
      const logged = new Map(replay.map((e) => [Number(e.id), JSON.stringify(e.data.result)]));
      const task = (await rpc(router.url, "tasks/get", { id: taskId })).result;
      expect(task.status.state).toBe("completed");
      expect(task.artifacts[0].parts[0].text).toBe(Array.from({ length: EVENTS_PER_TASK - 1 }, (_, i) => chunkText(t, i + 1)).join(""));
      for (const r of results.filter((x) => x.taskId === taskId)) {
        const seqs = r.got.map((e) => e.seq);
        const missing = expected.filter((s) => !seqs.includes(s));
        const duplicated = seqs.filter((s, i) => seqs.indexOf(s) !== i);
        expect({ task: taskId, missing, duplicated, where }).toEqual({ task: taskId, missing: [], duplicated: [], where });
        expect({ inOrder: seqs.every((s, i) => s === i + 1), where }).toEqual({ inOrder: true, where });
        const differing = r.got.filter((e) => JSON.stringify(e.result) !== logged.get(e.seq)).map((e) => e.seq);
        expect({ task: taskId, differing, where }).toEqual({ task: taskId, differing: [], where });
      }
    }
  });
});

/** Resolves once the task exists (its first client's send has stored it). */
async function waitForTask(taskId: string): Promise<void> {
  for (;;) {
    if (await router.engine.getTask(taskId)) return;
    await new Promise((r) => setImmediate(r));
  }
}
