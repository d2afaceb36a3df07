/**
 * The SQLite store's tables, synchronously, on the thread that owns the connection (sqlite-worker.ts): rows
 * in, JSON text out. Parsing and serializing stay with the caller, so the worker does only SQLite's work.
 */
import { statSync } from "node:fs";
import type Database from "better-sqlite3";
import type { ListTasksFilter, ListTasksQuery } from "../core/store.js";
import { checkCount, checkListQuery, continuesLog } from "./common.js";
import { closeDatabase, isFile, openDatabase, TERMINAL_SQL, type OpenedFile } from "./sqlite-open.js";
import type { EventRow, TaskRow } from "./sqlite-protocol.js";

type JsonRow = { json: string };
type CountRow = { n: number };
type Filter = "contextId" | "state" | "agentId" | "owner" | "statusSinceMs" | "before";
const FILTER_SQL: Record<Filter, string> = {
  contextId: "context_id = @contextId",
  state: "state = @state",
  agentId: "agent_id = @agentId",
  // Read from the task's JSON: keeps databases of earlier versions readable without a migration.
  owner: "json_extract(json, '$.owner') = @owner",
  // A scan: the filter is rare and agents' timestamps come in any ISO form, so they are compared as parsed.
  statusSinceMs: "status_ms(json_extract(json, '$.status.timestamp'), updated_at) >= @statusSinceMs",
  // A row value, so the cursor follows the ORDER BY exactly (and can walk the (updated_at, id) index).
  before: "(updated_at, id) < (@beforeMs, @beforeId)",
};

/** SQLite's default page size, which the store keeps. */
const PAGE_BYTES = 4096;

/** How long the writer waits for the checkpoint thread before committing on (and trying again next commit). */
const RESTART_PATIENCE_MS = 2000;
/** Something to sleep on between attempts (a worker thread may block; nothing else runs on it). */
const pause = new Int32Array(new SharedArrayBuffer(4));

/** The WAL file's extent (it keeps its largest until it is cut back). */
function walBytes(path: string): number {
  return statSync(`${path}-wal`, { throwIfNoEntry: false })?.size ?? 0;
}

/** The statements, prepared once; listTasks and countTasks once per combination of filters. */
export class SqliteTables {
  #file: OpenedFile;
  #db: Database.Database;
  #path: string;
  #stmt;
  #listStatements = new Map<string, Database.Statement<[Record<string, unknown>], JsonRow>>();
  #countStatements = new Map<string, Database.Statement<[Record<string, unknown>], CountRow>>();
  #commit: (tasks: TaskRow[], events: EventRow[]) => void;

  /** WAL extent past which the writer itself makes the WAL start over (none for a private database). */
  #walLimitBytes: number | undefined;

  /**
   * `restartFrames`: the checkpoint thread's threshold. Should that thread fall behind (a starved core), the
   * writer makes the WAL start over itself at twice it: a short stall of its own commits, mostly already copied,
   * rather than a WAL that grows without bound.
   */
  constructor(path: string, restartFrames: number) {
    this.#path = path;
    if (isFile(path)) this.#walLimitBytes = 2 * restartFrames * PAGE_BYTES;
    this.#file = openDatabase(path);
    const db = (this.#db = this.#file.db);
    this.#stmt = {
      upsertTask: db.prepare<TaskRow>(
        `INSERT INTO tasks (id, context_id, agent_id, state, updated_at, json) VALUES (?, ?, ?, ?, ?, ?)
         ON CONFLICT (id) DO UPDATE SET context_id = excluded.context_id, agent_id = excluded.agent_id,
         state = excluded.state, updated_at = excluded.updated_at, json = excluded.json`,
      ),
      insertEvent: db.prepare<EventRow>("INSERT INTO events (task_id, seq, json) VALUES (?, ?, ?)"),
      // The primary key's last entry for the task: one index probe, not a count.
      lastSeq: db.prepare<[string], { n: number }>("SELECT COALESCE(MAX(seq), 0) AS n FROM events WHERE task_id = ?"),
      getTask: db.prepare<[string], JsonRow>("SELECT json FROM tasks WHERE id = ?"),
      readEvents: db.prepare<[string, number, number], JsonRow>(
        "SELECT json FROM events WHERE task_id = ? AND seq > ? ORDER BY seq LIMIT ?",
      ),
      unfinished: db.prepare<[], JsonRow>(`SELECT json FROM tasks WHERE state NOT IN (${TERMINAL_SQL}) ORDER BY updated_at, id`),
      setPush: db.prepare<[string, string, string]>(
        `INSERT INTO push_configs (task_id, config_id, json) VALUES (?, ?, ?)
         ON CONFLICT (task_id, config_id) DO UPDATE SET json = excluded.json`,
      ),
      getPush: db.prepare<[string], JsonRow>("SELECT json FROM push_configs WHERE task_id = ? ORDER BY config_id"),
      deletePush: db.prepare<[string, string]>("DELETE FROM push_configs WHERE task_id = ? AND config_id = ?"),
      addMemory: db.prepare<[string, string, number, string]>(
        "INSERT OR IGNORE INTO memories (id, room_id, created_at, json) VALUES (?, ?, ?, ?)",
      ),
      allMemories: db.prepare<[string], JsonRow>("SELECT json FROM memories WHERE room_id = ? ORDER BY created_at, seq"),
      newestMemories: db.prepare<[string, number], JsonRow>(
        `SELECT json FROM (SELECT json, created_at, seq FROM memories WHERE room_id = ?
         ORDER BY created_at DESC, seq DESC LIMIT ?) ORDER BY created_at, seq`,
      ),
    };
    const stmt = this.#stmt;
    this.#commit = db.transaction((tasks: TaskRow[], events: EventRow[]) => {
      for (const row of tasks) stmt.upsertTask.run(...row);
      // Checked as it goes: a gap throws, and the transaction takes back everything this batch wrote before it.
      const ends = new Map<string, number>();
      for (const [taskId, seq, json] of events) {
        const end = ends.get(taskId) ?? stmt.lastSeq.get(taskId)!.n;
        const append = continuesLog(taskId, seq, end);
        if (append) stmt.insertEvent.run(taskId, seq, json);
        ends.set(taskId, append ? seq : end);
      }
    });
  }

  /** One transaction for the batch; an event already stored is skipped, a gap fails it all. */
  commit(tasks: TaskRow[], events: EventRow[]): void {
    this.#commit(tasks, events);
    if (this.#walLimitBytes !== undefined && walBytes(this.#path) > this.#walLimitBytes) this.#restartWal();
  }

  /**
   * A RESTART checkpoint, retried while the checkpoint thread's own pass holds the checkpoint lock (SQLite
   * answers busy at once then): the writer holds its commits meanwhile, so the WAL cannot grow past its bound.
   */
  #restartWal(): void {
    const giveUpAt = Date.now() + RESTART_PATIENCE_MS;
    for (;;) {
      const [result] = this.#db.pragma("wal_checkpoint(RESTART)") as Array<{ busy: number }>;
      if (!result?.busy || Date.now() > giveUpAt) return;
      Atomics.wait(pause, 0, 0, 1);
    }
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
      stmt = this.#db.prepare<[Record<string, unknown>], CountRow>(`SELECT COUNT(*) AS n FROM tasks ${whereSql(used)}`);
      this.#countStatements.set(key, stmt);
    }
    return stmt.get(params)!.n;
  }

  /** Oldest update first. */
  listUnfinishedTasks(): string[] {
    return jsonOf(this.#stmt.unfinished.all());
  }

  setPushConfig(taskId: string, configId: string, json: string): void {
    this.#stmt.setPush.run(taskId, configId, json);
  }

  /** Ordered by config id. */
  getPushConfigs(taskId: string): string[] {
    return jsonOf(this.#stmt.getPush.all(taskId));
  }

  deletePushConfig(taskId: string, configId: string): void {
    this.#stmt.deletePush.run(taskId, configId);
  }

  /** An id already stored is a no-op. */
  addMemory(id: string, roomId: string, createdAt: number, json: string): void {
    this.#stmt.addMemory.run(id, roomId, createdAt, json);
  }

  listMemories(roomId: string, limit?: number): string[] {
    if (limit === undefined) return jsonOf(this.#stmt.allMemories.all(roomId));
    checkCount("limit", limit);
    return jsonOf(this.#stmt.newestMemories.all(roomId, limit));
  }

  close(): void {
    closeDatabase(this.#file, this.#path);
  }

  /** The listTasks statement for one combination of filters, prepared on first use. */
  #listStatement(used: Filter[]): Database.Statement<[Record<string, unknown>], JsonRow> {
    const key = used.join(",");
    let stmt = this.#listStatements.get(key);
    if (!stmt) {
      stmt = this.#db.prepare<[Record<string, unknown>], JsonRow>(
        `SELECT json FROM tasks ${whereSql(used)} ORDER BY updated_at DESC, id DESC LIMIT @limit`,
      );
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

function whereSql(used: Filter[]): string {
  return used.length ? `WHERE ${used.map((f) => FILTER_SQL[f]).join(" AND ")}` : "";
}

function jsonOf(rows: JsonRow[]): string[] {
  return rows.map((row) => row.json);
}
