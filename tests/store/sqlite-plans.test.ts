/**
 * How SQLite runs the store's busiest statements, read from `EXPLAIN QUERY PLAN` on a real store file: each
 * searches its index, including those whose parameters are hidden from the planner (INT_PARAM / TEXT_PARAM),
 * recovery reads only the unfinished tasks' index, not every task ever stored, and a key's listing only its
 * own tasks' index.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, test } from "@jest/globals";
import Database from "better-sqlite3";
import { SqliteStore } from "../../router/store/index.js";
import { countTasksSql, listTasksSql, READ_SQL } from "../../router/store/sqlite-queries.js";
import { LAST_SEQ_SQL } from "../../router/store/sqlite-tables.js";
import { makeEvent, makeTask } from "../store.contract.js";

let dir = "";
let db: Database.Database;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "a2a-sqlite-plans-"));
  const path = join(dir, "router.db");
  const store = await SqliteStore.open(path);
  await store.commit({ tasks: [makeTask("t", { lastSeq: 2 })], events: [makeEvent("t", 1), makeEvent("t", 2)] });
  await store.close();
  db = new Database(path, { readonly: true });
});
afterAll(async () => {
  db?.close();
  await rm(dir, { recursive: true, force: true });
});

/** The plan's steps, one line each, with every parameter (positional or named) bound to 1. */
function plan(sql: string): string[] {
  const named = Object.fromEntries(Array.from(sql.matchAll(/@(\w+)/g), (m) => [m[1], 1]));
  const params = Object.keys(named).length > 0 ? [named] : Array.from(sql.matchAll(/\?/g), () => 1);
  return (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...params) as { detail: string }[]).map((row) => row.detail);
}

test.each([
  ["readEvents", READ_SQL.readEvents, "SEARCH events USING PRIMARY KEY (task_no=? AND seq>?)"],
  ["lastSeq", LAST_SEQ_SQL, "SEARCH events USING PRIMARY KEY (task_no=?)"],
  ["getTask", READ_SQL.getTask, "SEARCH tasks USING INDEX sqlite_autoindex_tasks_1 (id=?)"],
  ["getPush", READ_SQL.getPush, "SEARCH push_configs USING PRIMARY KEY (task_id=?)"],
  ["allMemories", READ_SQL.allMemories, "SEARCH memories USING INDEX memories_room (room_id=?)"],
  ["newestMemories", READ_SQL.newestMemories, "SEARCH memories USING INDEX memories_room (room_id=?)"],
])("%s searches its index", (_name, sql, search) => {
  const steps = plan(sql);
  expect(steps).toContain(search);
  // No table is walked row by row (a subquery's own rows may be).
  expect(steps.filter((s) => /^SCAN (tasks|events|push_configs|memories)\b/.test(s))).toEqual([]);
});

test("recovery reads the unfinished tasks' partial index, not every task", () => {
  expect(plan(READ_SQL.unfinished)[0]).toBe("SCAN tasks USING INDEX tasks_unfinished");
});

test("a key's tasks are listed and counted from the owner index, not by reading every task's JSON", () => {
  expect(plan(listTasksSql(["owner"]))[0]).toBe("SEARCH tasks USING INDEX tasks_owner (owner=?)");
  expect(plan(listTasksSql(["owner", "before"]))[0]).toMatch(/^SEARCH tasks USING INDEX tasks_owner \(owner=\? AND updated_at<\?\)$/);
  expect(plan(countTasksSql(["owner"]))).toEqual(["SEARCH tasks USING COVERING INDEX tasks_owner (owner=?)"]);
  // A conversation's tasks are few: with a context among the filters, its index goes first.
  expect(plan(listTasksSql(["contextId", "owner"]))[0]).toBe("SEARCH tasks USING INDEX tasks_context (context_id=?)");
});

test("a store file made before the owner index gets it when opened, and keeps its layout", async () => {
  const path = join(dir, "without-owner-index.db");
  const before = await SqliteStore.open(path);
  await before.commit({ tasks: [makeTask("mine", { owner: "key-a" }), makeTask("theirs", { owner: "key-b" })], events: [] });
  await before.close();
  const file = new Database(path);
  file.exec("DROP INDEX tasks_owner");
  const layout = file.pragma("user_version", { simple: true });
  file.close();
  const store = await SqliteStore.open(path);
  try {
    expect((await store.listTasks({ owner: "key-a", limit: 10 })).map((t) => t.id)).toEqual(["mine"]);
  } finally {
    await store.close();
  }
  const after = new Database(path, { readonly: true });
  try {
    expect(after.prepare("SELECT name FROM sqlite_schema WHERE type = 'index' AND name = 'tasks_owner'").get()).toEqual({ name: "tasks_owner" });
    expect(after.pragma("user_version", { simple: true })).toBe(layout);
  } finally {
    after.close();
  }
});
