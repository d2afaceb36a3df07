import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { expect, test } from "@jest/globals";
import { AsyncQueue } from "../../router/core/async-queue.js";
import type { AgentUpdate } from "../../router/core/model.js";
import { TaskChannel } from "../../hub/task-channel.js";

/**
 * The queues between an agent and the engine (both on router/core/fifo.ts) hold an update only until the
 * engine takes it. A taken slot kept until the array was compacted (a thousand at a time) held a thousand
 * large events alive: with 64 KB updates, 64 MB the router could not give back (with the TaskChannel
 * rewrite, the slow-reader bench's RSS went from +225 MB to +40 MB).
 */
setFlagsFromString("--expose-gc");
const gc = runInNewContext("gc") as () => void;

/** How many targets outlive a full collection (in a later job: V8 keeps WeakRef targets to the job's end). */
async function survivors(refs: Array<WeakRef<object>>): Promise<number> {
  await new Promise((r) => setImmediate(r));
  gc();
  return refs.filter((r) => r.deref() !== undefined).length;
}

/** Takes `n` items in a frame of its own (a suspended test's frame could keep the last one it awaited). */
async function take(iterator: AsyncIterator<unknown>, n: number): Promise<void> {
  for (let i = 0; i < n; i++) expect((await iterator.next()).done).toBe(false);
}

const update = (i: number): AgentUpdate => ({
  kind: "status",
  status: { state: "working", message: { role: "agent", parts: [{ kind: "text", text: `${i}`.repeat(1000) }] } },
  final: false,
});

test("an AsyncQueue lets go of each item it has handed out", async () => {
  const queue = new AsyncQueue<AgentUpdate>();
  const refs: Array<WeakRef<object>> = [];
  for (let i = 0; i < 100; i++) {
    const u = update(i);
    refs.push(new WeakRef(u));
    queue.push(u);
  }
  const iterator = queue[Symbol.asyncIterator]();
  await take(iterator, 100);
  // The queue is still open and still referenced: only what it holds could keep the updates. At most the
  // last one handed out may live on (its consumer's until it asks for the next).
  expect(await survivors(refs)).toBeLessThanOrEqual(1);
  queue.push(update(100));
  expect((await iterator.next()).done).toBe(false);
});

test("a TaskChannel lets go of each update the engine has taken", async () => {
  const channel = new TaskChannel(async () => true);
  const refs: Array<WeakRef<object>> = [];
  const durable: Array<Promise<boolean>> = [];
  for (let i = 0; i < 100; i++) {
    const u = update(i);
    refs.push(new WeakRef(u));
    durable.push(channel.push(u));
  }
  await take(channel, 100);
  // The 100th is taken once the engine asks again; then all are durable and none is held.
  const waiting = channel.next();
  expect(await Promise.all(durable)).toEqual(Array(100).fill(true));
  expect(await survivors(refs)).toBeLessThanOrEqual(1);
  channel.end();
  expect((await waiting).done).toBe(true);
});
