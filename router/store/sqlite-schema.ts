/**
 * The SQLite store's tables, and the step that brings a file an earlier router wrote up to them. A file says
 * which layout it holds in `PRAGMA user_version`: 0 is the first (or a new, empty file), SCHEMA_VERSION this one.
 */
import type Database from "better-sqlite3";
import { TERMINAL_STATE_LIST } from "./common.js";

/** `NOT IN` list of the terminal states, for SQL. */
export const TERMINAL_SQL = TERMINAL_STATE_LIST.map((s) => `'${s}'`).join(", ");

/**
 * Bound parameters the query planner plans without reading. better-sqlite3 builds SQLite with STAT4, and SQLite
 * then plans an ordered or bounded read with the values of parameters compared to its index or taken as its
 * LIMIT, and prepares the statement again whenever one of those values changes: every commit's last-seq probe
 * and every log read did, a third to half of their time (docs/benchmarks.md, eleventh pass), for plans that
 * could not differ (the store keeps no statistics). A parameter inside a CAST is a value the planner cannot
 * see; the index is used all the same (tests/store/sqlite-plans.test.ts).
 */
export const INT_PARAM = "CAST(? AS INTEGER)";
export const TEXT_PARAM = "CAST(? AS TEXT)";

/**
 * A task's owner (the API key it was created under, when the router authenticates), as SQL: a column of its
 * own since layout 2, written with the task's JSON (which holds it too). Layout 1 indexed
 * `json_extract(json, '$.owner')`, and SQLite then parsed the whole JSON of a task, new and old, at every
 * write: for a task holding 30 MB of text, 120 MB of parse trees (docs/benchmarks.md, "Large bodies").
 */
export const OWNER_SQL = "owner";

/** The layout this router reads and writes. */
export const SCHEMA_VERSION = 3;

/**
 * The largest piece of a row's JSON written as one value (layout 3). A larger task or event row holds a small
 * stand-in in its `json` (a task's, the status timestamp its listing filters on) and the count of its pieces in
 * `chunks`; the JSON itself is in task_chunks / event_chunks, written in the same transaction and read back
 * joined (sqlite-queries.ts ROW_JSON). SQLite copies a value it is handed (better-sqlite3 binds with
 * SQLITE_TRANSIENT) and builds its record from the copy: for a 20 MB row, 40 MB held while it wrote; pieces
 * bound one at a time hold 2 MB (docs/benchmarks.md, "Large bodies", third pass).
 */
export const CHUNK_BYTES = 1024 * 1024;

/**
 * Layout 3's pieces of large rows (CHUNK_BYTES), `n` from 0. A task row written again drops its old pieces
 * (the trigger, at no cost for a row that had none); events are never rewritten.
 */
const CHUNK_TABLES = `
CREATE TABLE IF NOT EXISTS task_chunks (
  task_no INTEGER NOT NULL, n INTEGER NOT NULL, json TEXT NOT NULL, PRIMARY KEY (task_no, n));
CREATE TABLE IF NOT EXISTS event_chunks (
  task_no INTEGER NOT NULL, seq INTEGER NOT NULL, n INTEGER NOT NULL, json TEXT NOT NULL, PRIMARY KEY (task_no, seq, n));
CREATE TRIGGER IF NOT EXISTS task_chunks_replaced AFTER UPDATE OF json ON tasks WHEN old.chunks IS NOT NULL
  BEGIN DELETE FROM task_chunks WHERE task_no = old.task_no; END;
`;

/**
 * Times are stored as epoch milliseconds so the `before` cursor and the order match the other stores.
 * A task's events are keyed by its `task_no`, not its id: numbers are handed out in order, so the events of
 * new tasks land at the end of their table whatever ids the clients chose (a v0.1 client names its tasks, at
 * random), where keying by a random id put each task's events on a page of their own (docs/benchmarks.md,
 * ninth pass). `task_no` is a named INTEGER PRIMARY KEY, which VACUUM keeps (it may renumber a bare rowid);
 * memories carry an explicit `seq` for the same reason, so equal `createdAt` keep insertion order.
 * The partial index serves listUnfinishedTasks without scanning finished history.
 */
const TABLES = `
CREATE TABLE IF NOT EXISTS tasks (
  task_no INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE, context_id TEXT NOT NULL, agent_id TEXT NOT NULL,
  state TEXT NOT NULL, updated_at INTEGER NOT NULL, json TEXT NOT NULL, owner TEXT, chunks INTEGER);
CREATE TABLE IF NOT EXISTS events (
  task_no INTEGER NOT NULL, seq INTEGER NOT NULL, json TEXT NOT NULL, chunks INTEGER, PRIMARY KEY (task_no, seq)) WITHOUT ROWID;
${CHUNK_TABLES}`;

const INDEXES_AND_THE_REST = `
CREATE INDEX IF NOT EXISTS tasks_updated ON tasks (updated_at, id);
CREATE INDEX IF NOT EXISTS tasks_context ON tasks (context_id, updated_at);
CREATE INDEX IF NOT EXISTS tasks_agent ON tasks (agent_id, updated_at);
CREATE INDEX IF NOT EXISTS tasks_state ON tasks (state, updated_at);
CREATE INDEX IF NOT EXISTS tasks_unfinished ON tasks (updated_at) WHERE state NOT IN (${TERMINAL_SQL});
CREATE INDEX IF NOT EXISTS tasks_owner ON tasks (${OWNER_SQL}, updated_at) WHERE ${OWNER_SQL} IS NOT NULL;
CREATE TABLE IF NOT EXISTS push_configs (
  task_id TEXT NOT NULL, config_id TEXT NOT NULL, json TEXT NOT NULL, PRIMARY KEY (task_id, config_id)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS memories (
  seq INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE, room_id TEXT NOT NULL, created_at INTEGER NOT NULL,
  json TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS memories_room ON memories (room_id, created_at, seq);
CREATE TABLE IF NOT EXISTS records (key TEXT PRIMARY KEY, value TEXT NOT NULL, expires_at INTEGER NOT NULL) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS records_expiry ON records (expires_at);
`;

/**
 * Layout 0 to 1: tasks numbered in the order they were stored (their rowid's), events keyed by that number.
 * Events of no stored task were unreachable by any listing and are not carried over.
 */
const FROM_VERSION_0 = `
ALTER TABLE tasks RENAME TO tasks_v0;
ALTER TABLE events RENAME TO events_v0;
DROP INDEX IF EXISTS tasks_updated;
DROP INDEX IF EXISTS tasks_context;
DROP INDEX IF EXISTS tasks_agent;
DROP INDEX IF EXISTS tasks_state;
DROP INDEX IF EXISTS tasks_unfinished;
DROP INDEX IF EXISTS tasks_owner;
${TABLES}
INSERT INTO tasks (id, context_id, agent_id, state, updated_at, json, owner)
  SELECT id, context_id, agent_id, state, updated_at, json, json_extract(json, '$.owner') FROM tasks_v0 ORDER BY rowid;
INSERT INTO events (task_no, seq, json)
  SELECT t.task_no, e.seq, e.json FROM events_v0 e JOIN tasks t ON t.id = e.task_id;
DROP TABLE events_v0;
DROP TABLE tasks_v0;
`;

/** Layout 2 to 3: large rows in pieces (CHUNK_BYTES); the rows already stored stay whole. */
const FROM_VERSION_2 = `
ALTER TABLE tasks ADD COLUMN chunks INTEGER;
ALTER TABLE events ADD COLUMN chunks INTEGER;
${CHUNK_TABLES}`;

/** Layout 1 to 2: the owner in a column of its own (OWNER_SQL says why), indexed there rather than in the JSON; then 2 to 3. */
const FROM_VERSION_1 = `
DROP INDEX IF EXISTS tasks_owner;
ALTER TABLE tasks ADD COLUMN owner TEXT;
UPDATE tasks SET owner = json_extract(json, '$.owner');
${FROM_VERSION_2}`;

/**
 * Creates the tables of a new file, or brings an earlier router's up to this layout, in one transaction (a
 * failure leaves the file as it was). A file of a later layout is refused: this router would misread it.
 */
export function migrate(db: Database.Database): void {
  db.transaction(() => {
    const version = db.pragma("user_version", { simple: true }) as number;
    if (version > SCHEMA_VERSION) {
      throw new Error(`it holds store layout ${version}, written by a newer a2a-router; this one reads layout ${SCHEMA_VERSION}`);
    }
    if (version < SCHEMA_VERSION) {
      const hasTasks = db.prepare("SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = 'tasks'").get() !== undefined;
      db.exec(!hasTasks ? TABLES : version === 0 ? FROM_VERSION_0 : version === 1 ? FROM_VERSION_1 : FROM_VERSION_2);
    }
    // Every open: an index added since the file was made (tasks_owner) is built once. An index needs no new
    // layout, as an earlier router writing the file keeps it up to date (SQLite does, for every index it holds).
    db.exec(INDEXES_AND_THE_REST);
    if (version < SCHEMA_VERSION) db.pragma(`user_version = ${SCHEMA_VERSION}`);
  }).immediate();
}
