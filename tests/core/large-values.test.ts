import { describe, expect, test } from "@jest/globals";
import { CommitQueue, MAX_BATCH_BYTES } from "../../router/core/commit-queue.js";
import { copyData } from "../../router/core/data-copy.js";
import { eventBytes, keptEventJson } from "../../router/core/event-bytes.js";
import { jsonPieces, jsonUtf8, PIECE_CHARS } from "../../router/core/json-pieces.js";
import type { LoggedEvent, Task } from "../../router/core/model.js";
import type { CommitBatch } from "../../router/core/store.js";
import { messageIdOf, stableId } from "../../router/dialects/shared/translate-helpers.js";
import { silentLogger } from "../../router/observability/logger.js";
import { MemoryStore } from "../../router/store/index.js";

/**
 * Issue 32 (memory bounded by the bytes in flight): how a large value is handled without copies of it. The
 * figures (RSS per 10 MB body) are bench/big-body.ts's; these tests hold the mechanisms: JSON made in pieces
 * that join to exactly JSON.stringify's text, large events measured without keeping their JSON, and commits
 * that never take several large tasks at once.
 */

const MB = 1024 * 1024;

function statusEvent(taskId: string, text: string, seq = 1): LoggedEvent {
  return {
    kind: "status",
    status: { state: "working", message: { role: "agent", parts: [{ kind: "text", text }] }, timestamp: "2026-11-27T00:00:00.000Z" },
    final: false,
    taskId,
    contextId: "c",
    seq,
  };
}

function task(id: string): Task {
  const now = "2026-11-27T00:00:00.000Z";
  return {
    id,
    contextId: "c",
    agentId: "a",
    dialect: "v0.3",
    status: { state: "working", timestamp: now },
    artifacts: [],
    history: [],
    metadata: {},
    createdAt: now,
    updatedAt: now,
    lastSeq: 0,
  };
}

describe("JSON in pieces", () => {
  const long = `${"a".repeat(PIECE_CHARS - 1)}\u{1F600}${'é"\\\n\u2028'.repeat(30_000)}${"\u{1F600}".repeat(PIECE_CHARS)}`;
  const values: unknown[] = [
    { text: long, n: [1, NaN, Infinity, -0, null, undefined, () => 1], skip: undefined, date: new Date(0), own: { toJSON: (k: string) => `key ${k}` } },
    [long, [long], { nested: { deeper: long } }],
    long,
    "\ud83d".repeat(PIECE_CHARS + 3),
    { small: "hello", list: [1, 2, 3] },
    Array.from({ length: 500 }, (_, i) => ({ i, s: `item ${i}` })),
  ];

  test("join to exactly JSON.stringify's text, in bounded pieces (a slice of text escapes to at most 6 characters each)", () => {
    for (const value of values) {
      const pieces = [...jsonPieces(value)];
      expect(pieces.join("")).toBe(JSON.stringify(value));
      for (const piece of pieces) expect(piece.length).toBeLessThan(7 * PIECE_CHARS);
    }
    expect([...jsonPieces(undefined)]).toEqual([]);
  });

  test("a small value is one piece, V8's own JSON", () => {
    expect([...jsonPieces({ small: "hello" })]).toEqual(['{"small":"hello"}']);
  });

  test("a long string is never cut inside a surrogate pair: the UTF-8 bytes are the whole JSON's", () => {
    const value = { text: long };
    expect(Buffer.from(jsonUtf8(value)).equals(Buffer.from(JSON.stringify(value)))).toBe(true);
    expect(jsonUtf8(value).byteOffset).toBe(0);
    expect(jsonUtf8(value).buffer.byteLength).toBe(Buffer.byteLength(JSON.stringify(value)));
  });

  test("a message's stable id is the same as hashing its parts' whole JSON, large or small", () => {
    const message = { role: "agent" as const, parts: [{ kind: "text" as const, text: long }] };
    expect(messageIdOf(message, "task-1")).toBe(stableId("task-1", "agent", JSON.stringify(message.parts)));
    // A small message is hashed in one step, a large one piece by piece: one id for the same bytes either way.
    const small = { role: "agent" as const, parts: [{ kind: "text" as const, text: "hello" }] };
    expect(messageIdOf(small, "task-1")).toBe(stableId("task-1", "agent", JSON.stringify(small.parts)));
  });
});

describe("large events and tasks", () => {
  test("a large event is measured, its JSON not kept; a small one's is kept for the store", () => {
    const large = statusEvent("t", "x".repeat(MB));
    expect(eventBytes(large)).toBe(JSON.stringify(large).length);
    expect(keptEventJson(large)).toBeUndefined();
    const small = statusEvent("t", "hello");
    expect(eventBytes(small)).toBe(JSON.stringify(small).length);
    expect(keptEventJson(small)).toBe(JSON.stringify(small));
  });

  test("copyData copies containers, so a copy can be changed without touching the original", () => {
    const original = { history: [{ role: "user", parts: [{ kind: "text", text: "x".repeat(MB) }] }], when: new Date(0), none: undefined };
    const copy = copyData(original);
    expect(copy).toEqual(original);
    expect(copy.history).not.toBe(original.history);
    expect(copy.history[0]!.parts[0]).not.toBe(original.history[0]!.parts[0]);
    expect(copy.when).not.toBe(original.when);
    expect("none" in copy).toBe(true);
    copy.history[0]!.parts.push({ kind: "text", text: "more" });
    expect(original.history[0]!.parts).toHaveLength(1);
    expect(() => copyData({ f: () => 1 })).toThrow();
  });

  test("a commit takes whole tasks up to MAX_BATCH_BYTES of events (at least one), every event stored in order", async () => {
    const store = new MemoryStore();
    const batches: CommitBatch[] = [];
    const recording = Object.assign(Object.create(store) as MemoryStore, {
      commit: async (b: CommitBatch) => {
        batches.push(b);
        await store.commit(b);
      },
    });
    const committed: string[] = [];
    const q = new CommitQueue(recording, {
      onCommitted: (events) => committed.push(...events.map((e) => `${e.taskId}:${e.seq}`)),
      onAbandoned: () => {},
      log: silentLogger(),
    });
    const text = "x".repeat(3 * MB);
    const ids = ["a", "b", "c", "d"];
    for (const id of ids) {
      const t = task(id);
      q.add(t, statusEvent(id, text, 1));
      q.add(t, statusEvent(id, text, 2));
    }
    q.add(task("small"), statusEvent("small", "hi", 1));
    expect(await q.flushed()).toBe(true);
    expect(batches.length).toBeGreaterThan(1);
    for (const b of batches) {
      const bytes = b.events.reduce((n, e) => n + eventBytes(e), 0);
      if (b.tasks.length > 1) expect(bytes).toBeLessThanOrEqual(MAX_BATCH_BYTES);
    }
    expect(committed).toEqual([...ids.flatMap((id) => [`${id}:1`, `${id}:2`]), "small:1"]);
    for (const id of ids) expect((await store.readEvents(id, 0, 10)).map((e) => e.seq)).toEqual([1, 2]);
    expect(q.unstoredBytes).toBe(0);
  });
});
