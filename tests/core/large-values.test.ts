import { describe, expect, test } from "@jest/globals";
import { CommitQueue, MAX_BATCH_BYTES } from "../../router/core/commit-queue.js";
import { copyData } from "../../router/core/data-copy.js";
import { eventBytes, keptEventJson } from "../../router/core/event-bytes.js";
import { jsonPieces, jsonUtf8, PIECE_CHARS } from "../../router/core/json-pieces.js";
import type { LoggedEvent, Message, Task } from "../../router/core/model.js";
import type { CommitBatch } from "../../router/core/store.js";
import { messageIdOf, stableId } from "../../router/dialects/shared/translate-helpers.js";
import { silentLogger } from "../../router/observability/logger.js";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { AddressInfo } from "node:net";
import Database from "better-sqlite3";
import express from "express";
import { idleCollection } from "../../router/http/idle-collection.js";
import { MemoryStore, SqliteStore } from "../../router/store/index.js";

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

describe("the SQLite store's rows", () => {
  /** A task whose turn ended with a large answer: the message is its status's and, as turn-runner adds it, its history's last. */
  function answered(id: string, text: string, state: "completed" | "input-required" = "completed"): Task {
    const t = task(id);
    const message: Message = { messageId: `m-${id}`, role: "agent", parts: [{ kind: "text", text }] };
    t.status = { state, message, timestamp: t.updatedAt };
    t.history = [
      { messageId: "u", role: "user", parts: [{ kind: "text", text: "question" }], taskId: id, contextId: "c" },
      { ...message, taskId: id, contextId: "c" },
    ];
    t.lastSeq = 1;
    return t;
  }

  test("a large task's row holds its answer once (status message not repeated in history); every read gives the task back as it was", async () => {
    const dir = await mkdtemp(join(tmpdir(), "a2a-large-rows-"));
    const path = join(dir, "rows.db");
    const text = "y".repeat(2 * MB);
    const large = answered("large", text, "input-required");
    const small = answered("small", "short answer");
    const store = await SqliteStore.open(path);
    try {
      await store.commit({ tasks: [large, small], events: [statusEvent("large", text), statusEvent("small", "short answer")] });
      for (const read of [
        await store.getTask("large"),
        (await store.listTasks({ limit: 10 })).find((t) => t.id === "large"),
        (await store.listUnfinishedTasks())[0],
      ]) {
        expect(JSON.stringify(read)).toBe(JSON.stringify(large));
      }
      expect(JSON.stringify(await store.getTask("small"))).toBe(JSON.stringify(small));
      const file = new Database(path, { readonly: true });
      try {
        // A row this large is stored in pieces (layout 3, tests/store/sqlite-chunks.test.ts): its length is theirs.
        const rows = file
          .prepare("SELECT id, coalesce((SELECT sum(length(c.json)) FROM task_chunks c WHERE c.task_no = tasks.task_no), length(json)) AS n FROM tasks")
          .all() as Array<{ id: string; n: number }>;
        const large = rows.find((r) => r.id === "large")!.n;
        expect(large).toBeGreaterThan(text.length);
        expect(large).toBeLessThan(text.length + 4096);
        // A small task's row is its JSON as it is.
        expect(rows.find((r) => r.id === "small")!.n).toBe(JSON.stringify(small).length);
      } finally {
        file.close();
      }
    } finally {
      await store.close();
      await rm(dir, { recursive: true, force: true });
    }
  });

  test("a history entry that differs from the status message in anything is kept", async () => {
    const dir = await mkdtemp(join(tmpdir(), "a2a-large-rows-"));
    const text = "z".repeat(MB);
    const other = answered("other", text);
    other.history[1] = { ...other.history[1]!, messageId: "another" };
    const store = await SqliteStore.open(join(dir, "rows.db"));
    try {
      await store.commit({ tasks: [other], events: [statusEvent("other", text)] });
      expect(JSON.stringify(await store.getTask("other"))).toBe(JSON.stringify(other));
    } finally {
      await store.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe("a full collection once the router is quiet after large bodies", () => {
  /** An app answering each POST's body length, behind idleCollection; `collected` resolves at each collection. */
  async function server(opts: { minOwedBytes: number }) {
    let signal: () => void = () => undefined;
    let collected = new Promise<void>((r) => (signal = r));
    // How many large bodies the route had read at each collection.
    let large = 0;
    const readAt: number[] = [];
    const gate = idleCollection({
      minBodyBytes: MB,
      minOwedBytes: opts.minOwedBytes,
      quietMs: 20,
      minIntervalMs: 0,
      collect: () => {
        readAt.push(large);
        signal();
        collected = new Promise<void>((r) => (signal = r));
      },
    });
    const app = express();
    app.use(gate);
    app.post("/", express.text({ type: () => true, limit: 16 * MB }), (req, res) => {
      if (String(req.body).length >= MB) large++;
      res.json({ n: String(req.body).length });
    });
    const http = await new Promise<import("node:http").Server>((resolve) => {
      const s = app.listen(0, "127.0.0.1", () => resolve(s));
    });
    const url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/`;
    const post = async (bytes: number) => (await (await fetch(url, { method: "POST", body: "b".repeat(bytes) })).json()) as { n: number };
    return { gate, post, readAt, collected: () => collected, close: () => new Promise((r) => http.close(r)) };
  }

  test("once all of them are answered, not per body; small bodies do not count", async () => {
    const s = await server({ minOwedBytes: 2 * MB });
    try {
      const waiting = s.collected();
      expect(await Promise.all([s.post(1.5 * MB), s.post(1.5 * MB), s.post(100)])).toEqual([{ n: 1.5 * MB }, { n: 1.5 * MB }, { n: 100 }]);
      await waiting;
      expect(s.readAt).toEqual([2]);
    } finally {
      await s.close();
    }
  });

  test("only once the answered bodies add up to minOwedBytes", async () => {
    const s = await server({ minOwedBytes: 2 * MB });
    try {
      const waiting = s.collected();
      await s.post(1.5 * MB);
      for (let i = 0; i < 5; i++) await s.post(1000);
      await s.post(1.5 * MB);
      await waiting;
      // Made after the second large body, not the first.
      expect(s.readAt).toEqual([2]);
      expect(s.gate.collections()).toBe(1);
    } finally {
      await s.close();
    }
  });
});
