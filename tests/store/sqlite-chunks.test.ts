/**
 * Layout 3 (issue 32 item 3): a large task row's and a large event's JSON are stored in pieces of at most
 * CHUNK_BYTES in side tables, written in the commit's transaction, and every read gives back the same JSON. A
 * layout-2 file is brought up to it. The memory this saves is bench/big-body.ts's to measure.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, test } from "@jest/globals";
import Database from "better-sqlite3";
import type { LoggedEvent, Task } from "../../router/core/model.js";
import { SqliteStore } from "../../router/store/index.js";
import { CHUNK_BYTES, SCHEMA_VERSION } from "../../router/store/sqlite-schema.js";
import { chunksOf } from "../../router/store/sqlite-tables.js";
import { at, makeEvent, makeTask } from "../store.contract.js";

let dir = "";
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "a2a-sqlite-chunks-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** Text of `chars` characters with one-, two-, three- and four-byte UTF-8 characters (and JSON escapes) all through it. */
function mixedText(chars: number): string {
  const unit = 'aé€\u{1F600}"\\\n';
  return unit.repeat(Math.ceil(chars / unit.length)).slice(0, chars);
}

/** A task of context "ctx-big" whose status message holds `text`. */
function bigTask(id: string, text: string, updatedAt = at(5)): Task {
  return makeTask(id, {
    contextId: "ctx-big",
    status: { state: "working", message: { role: "agent", parts: [{ kind: "text", text }] }, timestamp: updatedAt },
    lastSeq: 1,
    updatedAt,
  });
}

function bigEvent(taskId: string, seq: number, text: string): LoggedEvent {
  return { ...makeEvent(taskId, seq, "ctx-big"), status: { state: "working", message: { role: "agent", parts: [{ kind: "text", text }] } } } as LoggedEvent;
}

/** What the file holds for a task: its row's piece count and its pieces' sizes in bytes. */
function piecesOf(path: string, id: string): { chunks: number | null; bytes: number[] } {
  const db = new Database(path, { readonly: true });
  try {
    const row = db.prepare("SELECT task_no, chunks FROM tasks WHERE id = ?").get(id) as { task_no: number; chunks: number | null };
    const bytes = db.prepare("SELECT length(CAST(json AS BLOB)) AS n FROM task_chunks WHERE task_no = ? ORDER BY n").all(row.task_no) as Array<{ n: number }>;
    return { chunks: row.chunks, bytes: bytes.map((r) => r.n) };
  } finally {
    db.close();
  }
}

test("pieces join to the JSON, each at most CHUNK_BYTES of UTF-8, never cut inside a character", () => {
  const text = JSON.stringify({ text: mixedText(CHUNK_BYTES + 12_345) });
  const bytes = new TextEncoder().encode(text);
  const fromBytes = chunksOf(bytes)!;
  expect(fromBytes.length).toBeGreaterThan(2);
  for (const piece of fromBytes) expect(piece.length).toBeLessThanOrEqual(CHUNK_BYTES);
  // Each piece decodes on its own (fatal: a cut character would throw), and they join to the text.
  expect(fromBytes.map((p) => new TextDecoder("utf-8", { fatal: true }).decode(p as Uint8Array)).join("")).toBe(text);
  const fromString = chunksOf(text)! as string[];
  expect(fromString.length).toBeGreaterThan(2);
  for (const piece of fromString) expect(Buffer.byteLength(piece)).toBeLessThanOrEqual(CHUNK_BYTES);
  expect(fromString.join("")).toBe(text);
  expect(fromString.some((p) => /^[\uDC00-\uDFFF]|[\uD800-\uDBFF]$/.test(p))).toBe(false);
  expect(chunksOf("{}")).toBeUndefined();
  expect(chunksOf(new Uint8Array(CHUNK_BYTES))).toBeUndefined();
});

test("a large task and its large event are stored in pieces, and every read gives them back as they were", async () => {
  const path = join(dir, "chunks.db");
  const text = mixedText(Math.floor(2.5 * CHUNK_BYTES));
  const large = bigTask("large", text);
  const event = bigEvent("large", 1, text);
  const small = makeTask("small", { contextId: "ctx-big", lastSeq: 1, updatedAt: at(4) });
  const store = await SqliteStore.open(path);
  try {
    await store.commit({ tasks: [large, small], events: [event, makeEvent("small", 1, "ctx-big")] });
    const stored = piecesOf(path, "large");
    expect(stored.chunks).toBe(stored.bytes.length);
    expect(stored.bytes.length).toBeGreaterThan(2);
    for (const n of stored.bytes) expect(n).toBeLessThanOrEqual(CHUNK_BYTES);
    expect(piecesOf(path, "small")).toEqual({ chunks: null, bytes: [] });

    const expected = JSON.stringify(large);
    expect(JSON.stringify(await store.getTask("large"))).toBe(expected);
    expect(JSON.stringify((await store.listTasks({ limit: 10 }))[0])).toBe(expected);
    expect(JSON.stringify((await store.listTasks({ contextId: "ctx-big", limit: 10 }))[0])).toBe(expected);
    // The status-time filter reads the row's own column, which a row in pieces keeps the timestamp in.
    expect((await store.listTasks({ statusSinceMs: Date.parse(at(5)), limit: 10 })).map((t) => t.id)).toEqual(["large"]);
    expect((await store.listUnfinishedTasks()).map((t) => JSON.stringify(t))).toContain(expected);
    expect(JSON.stringify(await store.readEvents("large", 0, 10))).toBe(JSON.stringify([event]));
    // A byte budget counts the whole event's JSON.
    expect(await store.readEvents("large", 0, 10, 1024)).toHaveLength(1);

    // Written again smaller: one row, no pieces left behind; then larger again, with other text.
    const smaller = { ...large, status: { state: "working" as const, timestamp: at(6) }, updatedAt: at(6) };
    await store.commit({ tasks: [smaller], events: [] });
    expect(piecesOf(path, "large")).toEqual({ chunks: null, bytes: [] });
    expect(await store.getTask("large")).toEqual(smaller);
    const other = bigTask(
      "large",
      mixedText(3 * CHUNK_BYTES)
        .split("")
        .reverse()
        .join(""),
      at(7),
    );
    await store.commit({ tasks: [other], events: [bigEvent("large", 2, "short")] });
    expect(piecesOf(path, "large").chunks).toBe(piecesOf(path, "large").bytes.length);
    expect(JSON.stringify(await store.getTask("large"))).toBe(JSON.stringify(other));
    expect((await store.readEvents("large", 0, 10)).map((e) => e.seq)).toEqual([1, 2]);
  } finally {
    await store.close();
  }
  // Opened again (the router's reads on a connection of their own, the writer's on another): the same.
  const again = await SqliteStore.open(path);
  try {
    expect(JSON.stringify(await again.readEvents("large", 0, 1))).toBe(JSON.stringify([event]));
  } finally {
    await again.close();
  }
});

/** Layout 2 as the routers of the second pass created it. */
const LAYOUT_2 = `
CREATE TABLE tasks (
  task_no INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE, context_id TEXT NOT NULL, agent_id TEXT NOT NULL,
  state TEXT NOT NULL, updated_at INTEGER NOT NULL, json TEXT NOT NULL, owner TEXT);
CREATE TABLE events (
  task_no INTEGER NOT NULL, seq INTEGER NOT NULL, json TEXT NOT NULL, PRIMARY KEY (task_no, seq)) WITHOUT ROWID;
PRAGMA user_version = 2;
`;

test("a layout-2 file opens as layout 3: its whole rows read as before, and a large task written to it is stored in pieces", async () => {
  const path = join(dir, "layout-2.db");
  const old = bigTask("old", mixedText(2 * CHUNK_BYTES), at(1));
  const oldEvent = bigEvent("old", 1, "hello");
  const db = new Database(path);
  db.exec(LAYOUT_2);
  db.prepare("INSERT INTO tasks (id, context_id, agent_id, state, updated_at, json, owner) VALUES (?, ?, ?, ?, ?, ?, ?)").run(
    old.id,
    old.contextId,
    old.agentId,
    old.status.state,
    Date.parse(old.updatedAt),
    JSON.stringify(old),
    "key-a",
  );
  db.prepare("INSERT INTO events (task_no, seq, json) VALUES (1, 1, ?)").run(JSON.stringify(oldEvent));
  db.close();
  const store = await SqliteStore.open(path);
  const fresh = bigTask("fresh", mixedText(2 * CHUNK_BYTES), at(2));
  try {
    expect(JSON.stringify(await store.getTask("old"))).toBe(JSON.stringify(old));
    expect(await store.readEvents("old", 0, 10)).toEqual([oldEvent]);
    expect((await store.listTasks({ owner: "key-a", limit: 10 })).map((t) => t.id)).toEqual(["old"]);
    await store.commit({ tasks: [fresh], events: [bigEvent("fresh", 1, mixedText(2 * CHUNK_BYTES))] });
    expect(JSON.stringify(await store.getTask("fresh"))).toBe(JSON.stringify(fresh));
    // The old task written again goes to pieces too.
    await store.commit({ tasks: [{ ...old, lastSeq: 2 }], events: [bigEvent("old", 2, "again")] });
    expect(JSON.stringify(await store.getTask("old"))).toBe(JSON.stringify({ ...old, lastSeq: 2 }));
  } finally {
    await store.close();
  }
  expect(piecesOf(path, "old").chunks).toBeGreaterThan(1);
  expect(piecesOf(path, "fresh").chunks).toBeGreaterThan(1);
  const file = new Database(path, { readonly: true });
  try {
    expect(file.pragma("user_version", { simple: true })).toBe(SCHEMA_VERSION);
    expect(SCHEMA_VERSION).toBe(3);
  } finally {
    file.close();
  }
});
