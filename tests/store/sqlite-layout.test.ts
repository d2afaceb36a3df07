/**
 * The SQLite store's file layout across versions: a file an earlier router wrote (layout 0: events keyed by
 * their task's id) opens as the current layout with everything in it, and a newer router's file is refused.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, test } from "@jest/globals";
import Database from "better-sqlite3";
import { SqliteStore } from "../../router/store/index.js";
import { SCHEMA_VERSION } from "../../router/store/sqlite-schema.js";
import { at, makeEvent, makeTask } from "../store.contract.js";

/** Layout 0 as routers before the ninth pass created it (its user_version was never set: 0). */
const LAYOUT_0 = `
CREATE TABLE tasks (
  id TEXT PRIMARY KEY, context_id TEXT NOT NULL, agent_id TEXT NOT NULL, state TEXT NOT NULL,
  updated_at INTEGER NOT NULL, json TEXT NOT NULL);
CREATE INDEX tasks_updated ON tasks (updated_at, id);
CREATE INDEX tasks_context ON tasks (context_id, updated_at);
CREATE INDEX tasks_agent ON tasks (agent_id, updated_at);
CREATE INDEX tasks_state ON tasks (state, updated_at);
CREATE INDEX tasks_unfinished ON tasks (updated_at) WHERE state NOT IN ('completed', 'failed', 'canceled', 'rejected');
CREATE TABLE events (
  task_id TEXT NOT NULL, seq INTEGER NOT NULL, json TEXT NOT NULL, PRIMARY KEY (task_id, seq)) WITHOUT ROWID;
CREATE TABLE push_configs (
  task_id TEXT NOT NULL, config_id TEXT NOT NULL, json TEXT NOT NULL, PRIMARY KEY (task_id, config_id)) WITHOUT ROWID;
CREATE TABLE memories (
  seq INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE, room_id TEXT NOT NULL, created_at INTEGER NOT NULL,
  json TEXT NOT NULL);
CREATE INDEX memories_room ON memories (room_id, created_at, seq);
`;

let dir = "";
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "a2a-sqlite-layout-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const done = makeTask("done", { status: { state: "completed" }, lastSeq: 3, updatedAt: at(2) });
const waiting = makeTask("waiting", { contextId: "ctx-2", status: { state: "input-required" }, lastSeq: 1, updatedAt: at(1) });
const memory = { id: "m1", roomId: "room", agentId: "eliza", role: "user" as const, content: { text: "hi" }, createdAt: 5 };

/** A layout-0 file holding two tasks, their logs, an event of no task, a push config and a memory. */
function writeLayout0(path: string): void {
  const db = new Database(path);
  try {
    db.exec(LAYOUT_0);
    const task = db.prepare("INSERT INTO tasks VALUES (?, ?, ?, ?, ?, ?)");
    for (const t of [done, waiting]) task.run(t.id, t.contextId, t.agentId, t.status.state, Date.parse(t.updatedAt), JSON.stringify(t));
    const event = db.prepare("INSERT INTO events VALUES (?, ?, ?)");
    for (const seq of [1, 2, 3]) event.run("done", seq, JSON.stringify(makeEvent("done", seq)));
    event.run("waiting", 1, JSON.stringify(makeEvent("waiting", 1, "ctx-2")));
    event.run("gone", 1, JSON.stringify(makeEvent("gone", 1)));
    db.prepare("INSERT INTO push_configs VALUES (?, ?, ?)").run("waiting", "default", JSON.stringify({ url: "http://127.0.0.1:9/hook" }));
    db.prepare("INSERT INTO memories (id, room_id, created_at, json) VALUES (?, ?, ?, ?)").run("m1", "room", 5, JSON.stringify(memory));
  } finally {
    db.close();
  }
}

const layoutOf = (path: string): unknown => {
  const db = new Database(path, { readonly: true });
  try {
    return db.pragma("user_version", { simple: true });
  } finally {
    db.close();
  }
};

test("a file an earlier router wrote opens with everything in it, and its tasks' logs go on", async () => {
  const path = join(dir, "layout-0.db");
  writeLayout0(path);
  const store = await SqliteStore.open(path);
  try {
    expect(await store.getTask("done")).toEqual(done);
    expect((await store.readEvents("done", 1, 10)).map((e) => e.seq)).toEqual([2, 3]);
    expect(await store.readEvents("waiting", 0, 10)).toEqual([makeEvent("waiting", 1, "ctx-2")]);
    expect(await store.readEvents("gone", 0, 10)).toEqual([]);
    expect((await store.listTasks({ limit: 10 })).map((t) => t.id)).toEqual(["done", "waiting"]);
    expect((await store.listTasks({ contextId: "ctx-2", limit: 10 })).map((t) => t.id)).toEqual(["waiting"]);
    expect(await store.countTasks({ state: "completed" })).toBe(1);
    expect((await store.listUnfinishedTasks()).map((t) => t.id)).toEqual(["waiting"]);
    expect(await store.getPushConfigs("waiting")).toEqual([{ url: "http://127.0.0.1:9/hook" }]);
    expect(await store.listMemories("room")).toEqual([memory]);
    // The task that waited for input takes its next turn on the migrated log; a new task starts its own.
    const resumed = { ...waiting, status: { state: "completed" as const }, lastSeq: 2, updatedAt: at(3) };
    await store.commit({ tasks: [resumed, makeTask("new", { lastSeq: 1 })], events: [makeEvent("waiting", 2, "ctx-2"), makeEvent("new", 1)] });
    expect((await store.readEvents("waiting", 0, 10)).map((e) => e.seq)).toEqual([1, 2]);
    expect((await store.readEvents("new", 0, 10)).map((e) => e.seq)).toEqual([1]);
  } finally {
    await store.close();
  }
  expect(layoutOf(path)).toBe(SCHEMA_VERSION);
  // Opened again, it is already current: nothing is moved twice.
  const again = await SqliteStore.open(path);
  try {
    expect((await again.listTasks({ limit: 10 })).map((t) => t.id)).toEqual(["waiting", "done", "new"]);
    expect((await again.readEvents("done", 0, 10)).map((e) => e.seq)).toEqual([1, 2, 3]);
  } finally {
    await again.close();
  }
});

test("a file of a later layout is refused, naming the file and both layouts, and is left as it was", async () => {
  const path = join(dir, "later.db");
  const db = new Database(path);
  db.pragma(`user_version = ${SCHEMA_VERSION + 1}`);
  db.close();
  await expect(SqliteStore.open(path)).rejects.toThrow(
    `cannot open SQLite store at ${path}: it holds store layout ${SCHEMA_VERSION + 1}, written by a newer a2a-router; this one reads layout ${SCHEMA_VERSION}`,
  );
  expect(layoutOf(path)).toBe(SCHEMA_VERSION + 1);
});

/** Layout 1's tasks table: the owner only in the JSON, indexed there (what layout 2 moved to a column). */
const LAYOUT_1_TASKS = `
CREATE TABLE tasks (
  task_no INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE, context_id TEXT NOT NULL, agent_id TEXT NOT NULL,
  state TEXT NOT NULL, updated_at INTEGER NOT NULL, json TEXT NOT NULL);
CREATE TABLE events (
  task_no INTEGER NOT NULL, seq INTEGER NOT NULL, json TEXT NOT NULL, PRIMARY KEY (task_no, seq)) WITHOUT ROWID;
CREATE INDEX tasks_owner ON tasks (json_extract(json, '$.owner'), updated_at) WHERE json_extract(json, '$.owner') IS NOT NULL;
PRAGMA user_version = 1;
`;

test("a layout-1 file's owners move to their column: a key still lists its own tasks, and no write parses a task's JSON", async () => {
  const path = join(dir, "layout-1.db");
  const mine = makeTask("mine", { owner: "key-a", updatedAt: at(1) });
  const theirs = makeTask("theirs", { owner: "key-b", updatedAt: at(2) });
  const db = new Database(path);
  db.exec(LAYOUT_1_TASKS);
  const insert = db.prepare("INSERT INTO tasks (id, context_id, agent_id, state, updated_at, json) VALUES (?, ?, ?, ?, ?, ?)");
  for (const t of [mine, theirs, done]) insert.run(t.id, t.contextId, t.agentId, t.status.state, Date.parse(t.updatedAt), JSON.stringify(t));
  db.close();
  const store = await SqliteStore.open(path);
  try {
    expect((await store.listTasks({ owner: "key-a", limit: 10 })).map((t) => t.id)).toEqual(["mine"]);
    expect(await store.countTasks({ owner: "key-b" })).toBe(1);
    expect(await store.getTask("mine")).toEqual(mine);
    await store.commit({ tasks: [makeTask("new", { owner: "key-a", updatedAt: at(3) })], events: [] });
    expect((await store.listTasks({ owner: "key-a", limit: 10 })).map((t) => t.id)).toEqual(["new", "mine"]);
  } finally {
    await store.close();
  }
  expect(layoutOf(path)).toBe(SCHEMA_VERSION);
  const file = new Database(path, { readonly: true });
  try {
    // The index is on the column: SQLite evaluates no JSON function when a task is written.
    const index = file.prepare("SELECT sql FROM sqlite_schema WHERE name = 'tasks_owner'").get() as { sql: string };
    expect(index.sql).not.toContain("json");
    expect(file.prepare("SELECT id, owner FROM tasks ORDER BY task_no").all()).toEqual([
      { id: "mine", owner: "key-a" },
      { id: "theirs", owner: "key-b" },
      { id: "done", owner: null },
      { id: "new", owner: "key-a" },
    ]);
  } finally {
    file.close();
  }
});
