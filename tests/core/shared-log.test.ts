import { afterEach, beforeEach, expect, jest, test } from "@jest/globals";
import { eventJson } from "../../router/core/event-bytes.js";
import type { LoggedEvent } from "../../router/core/model.js";
import { SharedLog } from "../../router/core/shared-log.js";
import { MemoryStore } from "../../router/store/memory-store.js";
import { makeEvent, makeTask, range } from "../store.contract.js";

/** A shared log over a memory store holding task "t" with `n` events, counting the log reads that reach the store. */
async function logOf(n: number): Promise<{ log: SharedLog; reads: () => number }> {
  const store = new MemoryStore();
  await store.commit({ tasks: [makeTask("t", { lastSeq: n })], events: range(1, n).map((seq) => makeEvent("t", seq)) });
  const spy = jest.spyOn(store, "readEvents");
  return { log: new SharedLog(store), reads: () => spy.mock.calls.length };
}

const seqs = (events: LoggedEvent[]): number[] => events.map((e) => e.seq);
const A = 1;
const B = 2;

beforeEach(() => {
  jest.useFakeTimers({ now: 0 });
});
afterEach(() => {
  jest.useRealTimers();
  jest.restoreAllMocks();
});

test("a lone reader reads every page from the store", async () => {
  const { log, reads } = await logOf(30);
  expect(seqs(await log.read("t", 0, 10, 1e9, A))).toEqual(range(1, 10));
  expect(seqs(await log.read("t", 10, 10, 1e9, A))).toEqual(range(11, 20));
  // Read again at a cursor it had: nothing was kept for it.
  expect(seqs(await log.read("t", 0, 10, 1e9, A))).toEqual(range(1, 10));
  expect(reads()).toBe(3);
});

test("readers catching up together share the pages: the same event objects, read from the store once", async () => {
  const { log, reads } = await logOf(30);
  await log.read("t", 0, 10, 1e9, A);
  // B arrives while A catches up: B's page is read and kept.
  const b1 = await log.read("t", 0, 10, 1e9, B);
  expect(seqs(b1)).toEqual(range(1, 10));
  expect(reads()).toBe(2);
  // A goes on, and now keeps what it reads for B.
  const a2 = await log.read("t", 10, 10, 1e9, A);
  const b2 = await log.read("t", 10, 10, 1e9, B);
  expect(seqs(b2)).toEqual(range(11, 20));
  for (const [i, event] of b2.entries()) expect(event).toBe(a2[i]);
  expect(reads()).toBe(3);
  // A third reader from the start gets the page B kept.
  const c1 = await log.read("t", 0, 10, 1e9, 3);
  for (const [i, event] of c1.entries()) expect(event).toBe(b1[i]);
  expect(reads()).toBe(3);
});

test("a reader whose cursor falls inside kept pages reads on across them, within its own limits", async () => {
  const { log, reads } = await logOf(40);
  await log.read("t", 0, 10, 1e9, A);
  await log.read("t", 0, 10, 1e9, B); // kept: 1-10
  await log.read("t", 10, 10, 1e9, A); // kept: 11-20
  expect(reads()).toBe(3);
  // From the middle of one page into the next, cut by the event limit.
  expect(seqs(await log.read("t", 5, 8, 1e9, B))).toEqual(range(6, 13));
  // Cut by bytes: two events' worth, and always at least one.
  const size = eventJson(makeEvent("t", 14)).length;
  expect(seqs(await log.read("t", 13, 10, 2 * size, B))).toEqual([14, 15]);
  expect(seqs(await log.read("t", 15, 10, 1, B))).toEqual([16]);
  // What the kept pages do not hold comes from the store.
  expect(reads()).toBe(3);
  expect(seqs(await log.read("t", 20, 10, 1e9, B))).toEqual(range(21, 30));
  expect(reads()).toBe(4);
});

test("a reader that has not read for a while no longer counts: the one left reads alone", async () => {
  const { log, reads } = await logOf(30);
  await log.read("t", 0, 10, 1e9, A);
  jest.advanceTimersByTime(1500);
  // A went quiet (it caught up, or its client left): B reads alone, and keeps nothing.
  await log.read("t", 0, 10, 1e9, B);
  await log.read("t", 0, 10, 1e9, B);
  expect(reads()).toBe(3);
});
