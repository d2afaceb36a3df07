/**
 * The SQLite store's reads: prepared statements over any connection to the file. The router's own thread
 * runs them on a connection of its own (a WAL reader never waits for the writer), so a read costs no trip to
 * the writer thread; a private in-memory database is read on the writer's connection instead.
 * Rows come back as JSON text: parsing stays with the caller.
 */
import Database from "better-sqlite3";
import type { ListTasksFilter, ListTasksQuery } from "../core/store.js";
import { checkCount, checkListQuery, statusMs } from "./common.js";
import { INT_PARAM, OWNER_SQL, TERMINAL_SQL, TEXT_PARAM } from "./sqlite-schema.js";

type JsonRow = { json: string };
type CountRow = { n: number };
export type Filter = "contextId" | "state" | "agentId" | "owner" | "statusSinceMs" | "before";
const FILTER_SQL: Record<Filter, string> = {
  contextId: "context_id = @contextId",
  state: "state = @state",
  agentId: "agent_id = @agentId",
  // The owner's column (layout 2; sqlite-schema.ts), through the partial index tasks_owner.
  owner: `${OWNER_SQL} = @owner`,
  // A scan: the filter is rare and agents' timestamps come in any ISO form, so they are compared as parsed.
  // tasks.json: a row stored in pieces keeps its status timestamp there (sqlite-schema.ts CHUNK_BYTES).
  statusSinceMs: "status_ms(json_extract(tasks.json, '$.status.timestamp'), updated_at) >= @statusSinceMs",
  // A row value, so the cursor follows the ORDER BY exactly (and can walk the (updated_at, id) index).
  before: "(updated_at, id) < (@beforeMs, @beforeId)",
};

/**
 * Opens a read-only connection to a file store another thread of this process has open and migrated. It never
 * waits for a lock (it runs on the event loop): a read that meets one goes to the writer thread (SqliteStore).
 */
export function openForReads(path: string): Database.Database {
  const db = new Database(path, { readonly: true, fileMustExist: true });
  db.pragma("busy_timeout = 0");
  return db;
}

/**
 * A task row's and an event row's JSON, whole: a row stored in pieces (layout 3, CHUNK_BYTES in
 * sqlite-schema.ts) is joined back in the same statement, so it reads one snapshot of the file.
 */
export const ROW_JSON = {
  task: `CASE WHEN tasks.chunks IS NULL THEN tasks.json ELSE
    (SELECT group_concat(c.json, '' ORDER BY c.n) FROM task_chunks c WHERE c.task_no = tasks.task_no) END AS json`,
  event: `CASE WHEN events.chunks IS NULL THEN events.json ELSE
    (SELECT group_concat(c.json, '' ORDER BY c.n) FROM event_chunks c WHERE c.task_no = events.task_no AND c.seq = events.seq) END AS json`,
} as const;

/**
 * The reads prepared once, by name. Parameters an ordered or bounded read compares to its index or takes as its
 * LIMIT are INT_PARAM / TEXT_PARAM (sqlite-schema.ts): SQLite would otherwise prepare those reads again for
 * every new task, seq or room.
 */
export const READ_SQL = {
  getTask: `SELECT ${ROW_JSON.task} FROM tasks WHERE id = ?`,
  readEvents: `SELECT ${ROW_JSON.event} FROM events WHERE task_no = (SELECT task_no FROM tasks WHERE id = ${TEXT_PARAM})
    AND seq > ${INT_PARAM} ORDER BY seq LIMIT ${INT_PARAM}`,
  // Named: the planner, knowing no sizes, would walk tasks_updated (every task ever) to spare sorting equal times.
  // The WHERE is the index's own (both TERMINAL_SQL), which INDEXED BY needs.
  unfinished: `SELECT ${ROW_JSON.task} FROM tasks INDEXED BY tasks_unfinished WHERE state NOT IN (${TERMINAL_SQL}) ORDER BY updated_at, id`,
  getPush: `SELECT json FROM push_configs WHERE task_id = ${TEXT_PARAM} ORDER BY config_id`,
  allMemories: `SELECT json FROM memories WHERE room_id = ${TEXT_PARAM} ORDER BY created_at, seq`,
  newestMemories: `SELECT json FROM (SELECT json, created_at, seq FROM memories WHERE room_id = ${TEXT_PARAM}
    ORDER BY created_at DESC, seq DESC LIMIT ${INT_PARAM}) ORDER BY created_at, seq`,
} as const;

/** The read statements, prepared once; listTasks and countTasks once per combination of filters. */
export class SqliteQueries {
  #db: Database.Database;
  #stmt;
  #listStatements = new Map<string, Database.Statement<[Record<string, unknown>], JsonRow>>();
  #countStatements = new Map<string, Database.Statement<[Record<string, unknown>], CountRow>>();

  constructor(db: Database.Database) {
    this.#db = db;
    db.function("status_ms", { deterministic: true }, (timestamp, updatedAt) => statusMs(timestamp, updatedAt as number));
    this.#stmt = {
      getTask: db.prepare<[string], JsonRow>(READ_SQL.getTask),
      readEvents: db.prepare<[string, number, number], JsonRow>(READ_SQL.readEvents),
      unfinished: db.prepare<[], JsonRow>(READ_SQL.unfinished),
      getPush: db.prepare<[string], JsonRow>(READ_SQL.getPush),
      allMemories: db.prepare<[string], JsonRow>(READ_SQL.allMemories),
      newestMemories: db.prepare<[string, number], JsonRow>(READ_SQL.newestMemories),
    };
  }

  getTask(id: string): string | undefined {
    return this.#stmt.getTask.get(id)?.json;
  }

  /** With `maxBytes`, row by row, so rows past the byte budget are never even read into memory. */
  readEvents(taskId: string, afterSeq: number, limit: number, maxBytes?: number): string[] {
    checkCount("afterSeq", afterSeq);
    checkCount("limit", limit);
    if (maxBytes === undefined) return jsonOf(this.#stmt.readEvents.all(taskId, afterSeq, limit));
    const out: string[] = [];
    let bytes = 0;
    for (const row of this.#stmt.readEvents.iterate(taskId, afterSeq, limit)) {
      if (out.length > 0 && bytes + row.json.length > maxBytes) break;
      bytes += row.json.length;
      out.push(row.json);
    }
    return out;
  }

  listTasks(query: ListTasksQuery): string[] {
    const cursor = checkListQuery(query);
    const { used, params } = bindFilters(query);
    params.limit = query.limit;
    if (cursor !== undefined) {
      used.push("before");
      params.beforeMs = cursor.ms;
      params.beforeId = cursor.id;
    }
    return jsonOf(this.#listStatement(used).all(params));
  }

  countTasks(filter: ListTasksFilter): number {
    const { used, params } = bindFilters(filter);
    const key = used.join(",");
    let stmt = this.#countStatements.get(key);
    if (!stmt) {
      stmt = this.#db.prepare<[Record<string, unknown>], CountRow>(countTasksSql(used));
      this.#countStatements.set(key, stmt);
    }
    return stmt.get(params)!.n;
  }

  /** Oldest update first. */
  listUnfinishedTasks(): string[] {
    return jsonOf(this.#stmt.unfinished.all());
  }

  /** Ordered by config id. */
  getPushConfigs(taskId: string): string[] {
    return jsonOf(this.#stmt.getPush.all(taskId));
  }

  listMemories(roomId: string, limit?: number): string[] {
    if (limit === undefined) return jsonOf(this.#stmt.allMemories.all(roomId));
    checkCount("limit", limit);
    return jsonOf(this.#stmt.newestMemories.all(roomId, limit));
  }

  close(): void {
    if (this.#db.open) this.#db.close();
  }

  /** The listTasks statement for one combination of filters, prepared on first use. */
  #listStatement(used: Filter[]): Database.Statement<[Record<string, unknown>], JsonRow> {
    const key = used.join(",");
    let stmt = this.#listStatements.get(key);
    if (!stmt) {
      stmt = this.#db.prepare<[Record<string, unknown>], JsonRow>(listTasksSql(used));
      this.#listStatements.set(key, stmt);
    }
    return stmt;
  }
}

/** The equality filters a query sets, and their statement parameters. */
function bindFilters(filter: ListTasksFilter): { used: Filter[]; params: Record<string, unknown> } {
  const used: Filter[] = [];
  const params: Record<string, unknown> = {};
  for (const name of ["contextId", "state", "agentId", "owner", "statusSinceMs"] as const) {
    const value = filter[name];
    if (value === undefined) continue;
    used.push(name);
    params[name] = value;
  }
  return { used, params };
}

/** A page of tasks matching the filters `used` (named parameters: the filters', `@limit`), newest first. */
export function listTasksSql(used: Filter[]): string {
  return `SELECT ${ROW_JSON.task} ${fromWhereSql(used)} ORDER BY updated_at DESC, id DESC LIMIT @limit`;
}

/** How many tasks match the filters `used`. */
export function countTasksSql(used: Filter[]): string {
  return `SELECT COUNT(*) AS n ${fromWhereSql(used)}`;
}

/**
 * The tasks a listing's filters select, as `FROM ... WHERE ...`. A context's tasks are few (a conversation), so
 * its index goes first when it is among the filters: the planner, knowing no sizes, may take another equal
 * prefix (an owner's, a state's) and walk all of it.
 */
function fromWhereSql(used: Filter[]): string {
  const from = used.includes("contextId") ? "FROM tasks INDEXED BY tasks_context" : "FROM tasks";
  return used.length ? `${from} WHERE ${used.map((f) => FILTER_SQL[f]).join(" AND ")}` : from;
}

function jsonOf(rows: JsonRow[]): string[] {
  return rows.map((row) => row.json);
}
