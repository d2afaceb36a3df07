import { describe, expect, jest, test } from "@jest/globals";
import { CommitQueue } from "../../router/core/commit-queue.js";
import { CLOSED, OVERFLOW, Subscriber } from "../../router/core/subscriber.js";
import type { LoggedEvent, Task } from "../../router/core/model.js";
import type { CommitBatch } from "../../router/core/store.js";
import { silentLogger } from "../../router/observability/logger.js";
import { MemoryStore } from "../../router/store/index.js";
import { formatComment, formatEvent, parseLastEventId } from "../../router/sse/format.js";
import { Heartbeat } from "../../router/sse/heartbeat.js";
import { exceedsDepth } from "../../router/schema/depth.js";
import { readFrame } from "../../hub/frames.js";
import { HubRefusal } from "../../hub/wire/errors.js";

const event = (seq: number): LoggedEvent => ({ kind: "status", status: { state: "working" }, final: false, taskId: "t", contextId: "c", seq });
const task = (): Task => ({
  id: "t",
  contextId: "c",
  agentId: "a",
  dialect: "v0.1",
  status: { state: "working" },
  artifacts: [],
  history: [],
  metadata: {},
  createdAt: "2026-01-01T00:00:00.000Z",
  updatedAt: "2026-01-01T00:00:00.000Z",
  lastSeq: 0,
});

describe("JSON depth", () => {
  /** `levels` containers nested, alternating objects (under "k", or "__proto__") and arrays. */
  const nested = (levels: number, key = "k"): string => {
    let text = "1";
    for (let i = 0; i < levels; i++) text = i % 2 ? `[${text}]` : `{"${key}":${text}}`;
    return text;
  };

  test("up to 100 levels of containers pass, 101 do not, whatever the containers or keys", () => {
    for (const key of ["k", "__proto__", "constructor"]) {
      expect(exceedsDepth(JSON.parse(nested(100, key)))).toBe(false);
      expect(exceedsDepth(JSON.parse(nested(101, key)))).toBe(true);
      expect(exceedsDepth(JSON.parse(`[1, {"a": "b"}, ${nested(101, key)}]`))).toBe(true);
    }
    expect(exceedsDepth(JSON.parse("[".repeat(20_000) + "]".repeat(20_000)))).toBe(true);
    for (const scalar of [null, 1, "s", true]) expect(exceedsDepth(scalar)).toBe(false);
    expect(exceedsDepth({ a: [] }, 2)).toBe(false);
    expect(exceedsDepth({ a: [[]] }, 2)).toBe(true);
  });
  test("a hub frame refuses 101 levels at the shortest text that holds them, and reads frames too short to hold them", () => {
    const frame = (params: string) => Buffer.from(`{"method":"m","params":${params}}`);
    // The frame is a level: 100 more in its params is 101. The shortest frame of 101 levels, `{"":` and 200 brackets.
    expect(readFrame(frame("[".repeat(99) + "]".repeat(99)), false)).not.toBeInstanceOf(HubRefusal);
    expect(readFrame(frame("[".repeat(100) + "]".repeat(100)), false)).toBeInstanceOf(HubRefusal);
    expect(readFrame(Buffer.from(`{"":${"[".repeat(100)}${"]".repeat(100)}}`), false)).toBeInstanceOf(HubRefusal);
    expect(readFrame(Buffer.from(`{"a":${nested(100)}}`), false)).toBeInstanceOf(HubRefusal);
    expect(readFrame(Buffer.from(`{"a":${nested(99)}}`), false)).not.toBeInstanceOf(HubRefusal);
    expect(readFrame(frame('{"task_id":"t","status":{"state":"working"}}'), false)).toEqual({
      method: "m",
      params: { task_id: "t", status: { state: "working" } },
    });
  });
});

describe("SSE format", () => {
  test("events, comments and ids", () => {
    expect(formatEvent('{"a":1}', 3)).toBe('id: 3\ndata: {"a":1}\n\n');
    expect(formatEvent('{"a":1}')).toBe('data: {"a":1}\n\n');
    expect(formatComment("ping")).toBe(": ping\n\n");
    expect(() => formatEvent("{}", "1\n2")).toThrow(/CR or LF/);
    expect(() => formatEvent("a\nb", 1)).toThrow(/single line/);
  });

  test("Last-Event-ID parsing", () => {
    expect(parseLastEventId(undefined)).toBeUndefined();
    expect(parseLastEventId(" 12 ")).toBe(12);
    expect(parseLastEventId("-1")).toBeInstanceOf(Error);
    expect(parseLastEventId("1.5")).toBeInstanceOf(Error);
    // Only the decimal seqs a stream sends: no exponents, fractions, hex or signs.
    for (const bad of ["1e3", "3.0", "0x10", "+2", "0b1"]) expect(parseLastEventId(bad)).toBeInstanceOf(Error);
    expect(parseLastEventId("007")).toBe(7);
  });
});

describe("Subscriber", () => {
  test("delivers in order, then overflows past capacity instead of growing", () => {
    const s = new Subscriber(2);
    s.push(event(1));
    s.push(event(2));
    expect(s.poll()).toMatchObject([{ seq: 1 }, { seq: 2 }]);
    s.push(event(3));
    s.push(event(4));
    s.push(event(5));
    expect(s.depth).toBe(0);
    expect(s.poll()).toBe(OVERFLOW);
  });

  test("a waiting reader wakes once after the pushes of a tick, and on close", async () => {
    const s = new Subscriber(4);
    expect(s.poll()).toBeUndefined();
    let wakes = 0;
    const woke = new Promise<void>((resolve) =>
      s.onReady(() => {
        wakes++;
        resolve();
      }),
    );
    s.push(event(1));
    s.push(event(2));
    await woke;
    expect(wakes).toBe(1);
    expect(s.poll()).toMatchObject([{ seq: 1 }, { seq: 2 }]);
    const closed = new Promise<void>((resolve) => s.onReady(resolve));
    s.close();
    await closed;
    expect(s.poll()).toBe(CLOSED);
  });
});

describe("Heartbeat", () => {
  test("pings a stream idle for an interval, every interval; a write puts its ping off; the timer ends with the last stream", () => {
    jest.useFakeTimers();
    try {
      const beat = new Heartbeat(100);
      const stream = {
        wroteAt: beat.tick,
        pings: 0,
        ping(tick: number) {
          this.wroteAt = tick;
          this.pings++;
        },
      };
      beat.add(stream);
      jest.advanceTimersByTime(99);
      expect(stream.pings).toBe(0);
      jest.advanceTimersByTime(1);
      expect(stream.pings).toBe(1);
      jest.advanceTimersByTime(300);
      expect(stream.pings).toBe(4);
      // A write 50 ms after the last ping: the next comes an interval after the write's tick, not 50 ms later.
      jest.advanceTimersByTime(50);
      stream.wroteAt = beat.tick;
      jest.advanceTimersByTime(75);
      expect(stream.pings).toBe(4);
      jest.advanceTimersByTime(25);
      expect(stream.pings).toBe(5);
      beat.delete(stream);
      expect(beat.size).toBe(0);
      expect(jest.getTimerCount()).toBe(0);
      jest.advanceTimersByTime(1000);
      expect(stream.pings).toBe(5);
    } finally {
      jest.useRealTimers();
    }
  });
});

describe("CommitQueue", () => {
  test("everything appended in one tick is one commit, fanned out only after it is stored", async () => {
    const store = new MemoryStore();
    const batches: CommitBatch[] = [];
    const committed: number[] = [];
    const spy = Object.assign(Object.create(store), {
      commit: async (b: CommitBatch) => {
        batches.push(b);
        expect(committed).toHaveLength(0);
        await store.commit(b);
      },
    });
    const q = new CommitQueue(spy, { onCommitted: (events) => committed.push(...events.map((e) => e.seq)), onAbandoned: () => undefined, log: silentLogger() });
    const t = task();
    for (let i = 1; i <= 100; i++) q.add(t, event(i));
    await q.flushed();
    expect(batches).toHaveLength(1);
    expect(batches[0]!.events).toHaveLength(100);
    expect(committed).toEqual(Array.from({ length: 100 }, (_, i) => i + 1));
    expect(await store.readEvents("t", 0, 1000)).toHaveLength(100);
  });

  test("a failing store is retried; nothing is acknowledged before it succeeds, nothing is lost", async () => {
    const store = new MemoryStore();
    let failures = 2;
    const spy = Object.assign(Object.create(store), {
      commit: async (b: CommitBatch) => {
        if (failures-- > 0) throw new Error("disk full");
        await store.commit(b);
      },
    });
    const committed: number[] = [];
    const q = new CommitQueue(spy, { onCommitted: (events) => committed.push(...events.map((e) => e.seq)), onAbandoned: () => undefined, log: silentLogger() });
    const t = task();
    q.add(t, event(1));
    q.add(t, event(2));
    await q.flushed();
    expect(committed).toEqual([1, 2]);
    expect((await store.readEvents("t", 0, 10)).map((e) => e.seq)).toEqual([1, 2]);
  });
});
