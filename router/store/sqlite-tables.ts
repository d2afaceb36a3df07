/**
 * The SQLite store's writes, synchronously, on the thread that owns the writing connection
 * (sqlite-worker.ts): rows in, nothing out. Serializing stays with the caller, so the worker does only
 * SQLite's work. Its `reads` serve a private in-memory database, which only this connection can reach.
 */
import { statSync } from "node:fs";
import type Database from "better-sqlite3";
import { continuesLog, eventWithoutTask } from "./common.js";
import { closeDatabase, isFile, openDatabase, openForInlineCommits, type OpenedFile } from "./sqlite-open.js";
import type { EventRow, RowJson, TaskRow } from "./sqlite-protocol.js";
import { SqliteQueries } from "./sqlite-queries.js";
import { CHUNK_BYTES, INT_PARAM } from "./sqlite-schema.js";

type TaskNo = { task_no: number };
/** upsertTask's parameters: a TaskRow's first six, the JSON (or a chunked row's stand-in), the count of pieces. */
type TaskParams = [string, string, string, string, number, string | null, RowJson, number | null];

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

/** At most this much WAL is written inline between two looks at the WAL's extent (needsUpkeep). */
const WAL_STAT_BYTES = 4 * 1024 * 1024;
/** A WAL frame: a page and its header. */
const FRAME_BYTES = PAGE_BYTES + 24;

/**
 * More WAL than a commit of these rows writes: each row's bytes (UTF-8: up to 3 a character) twice over, and 16
 * frames a row for the leaves of its table and indexes and their splits, and 4 more for the commit.
 */
function walBound(tasks: TaskRow[], events: EventRow[]): number {
  const size = (json: RowJson): number => (typeof json === "string" ? 3 * json.length : json.byteLength);
  let bytes = 4 * FRAME_BYTES;
  for (const row of tasks) bytes += 2 * size(row[6]) + 16 * FRAME_BYTES;
  for (const row of events) bytes += 2 * size(row[2]) + 16 * FRAME_BYTES;
  return bytes;
}

/** A task's last logged seq, 0 for none: the primary key's last entry for the task, one index probe, not a count. */
export const LAST_SEQ_SQL = `SELECT COALESCE(MAX(seq), 0) AS n FROM events WHERE task_no = ${INT_PARAM}`;

/** The write statements, prepared once. */
export class SqliteTables {
  /** Reads on this connection. */
  readonly reads: SqliteQueries;
  #file: OpenedFile;
  #db: Database.Database;
  #path: string;
  #stmt;
  #commit: (tasks: TaskRow[], events: EventRow[]) => void;
  /** WAL extent past which the writer itself makes the WAL start over (none for a private database). */
  #walLimitBytes: number | undefined;
  /** Raised by the checkpoint thread: the WAL is long enough to start over (sqlite-checkpointer.ts). */
  #restartWanted: Int32Array | undefined;
  #inline: boolean;
  /** WAL bytes this inline connection may write before needsUpkeep looks at the WAL's extent again. */
  #unstatted = 0;

  /**
   * `restartFrames`: the checkpoint thread's threshold. Should that thread fall behind (a starved core), the
   * writer makes the WAL start over itself at twice it: a short stall of its own commits, mostly already copied,
   * rather than a WAL that grows without bound. `restartWanted`: the checkpoint thread's request that the WAL
   * start over (none for a private database, which has no checkpoint thread). `inline`: the router thread's
   * second connection to a file the writer thread has open, for small commits (SqliteStore): it only
   * commits, and leaves the WAL's upkeep to the writer thread (`needsUpkeep` says when a commit should go
   * there for it).
   */
  constructor(path: string, restartFrames: number, restartWanted?: Int32Array, inline = false) {
    this.#path = path;
    this.#restartWanted = restartWanted;
    this.#inline = inline;
    if (isFile(path)) this.#walLimitBytes = 2 * restartFrames * PAGE_BYTES;
    this.#file = inline ? { db: openForInlineCommits(path), lock: undefined } : openDatabase(path);
    const db = (this.#db = this.#file.db);
    this.reads = new SqliteQueries(db);
    this.#stmt = {
      // A task written again replaces its pieces: the trigger task_chunks_replaced drops the old ones.
      upsertTask: db.prepare<TaskParams, TaskNo>(
        `INSERT INTO tasks (id, context_id, agent_id, state, updated_at, owner, json, chunks) VALUES (?, ?, ?, ?, ?, ?, CAST(? AS TEXT), ?)
         ON CONFLICT (id) DO UPDATE SET context_id = excluded.context_id, agent_id = excluded.agent_id,
         state = excluded.state, updated_at = excluded.updated_at, owner = excluded.owner, json = excluded.json,
         chunks = excluded.chunks RETURNING task_no`,
      ),
      taskChunk: db.prepare<[number, number, RowJson]>("INSERT INTO task_chunks (task_no, n, json) VALUES (?, ?, CAST(? AS TEXT))"),
      taskNo: db.prepare<[string], TaskNo>("SELECT task_no FROM tasks WHERE id = ?"),
      // CAST: JSON that came as UTF-8 bytes (RowJson) is stored as the same TEXT a string would be.
      insertEvent: db.prepare<[number, number, RowJson, number | null]>("INSERT INTO events (task_no, seq, json, chunks) VALUES (?, ?, CAST(? AS TEXT), ?)"),
      eventChunk: db.prepare<[number, number, number, RowJson]>("INSERT INTO event_chunks (task_no, seq, n, json) VALUES (?, ?, ?, CAST(? AS TEXT))"),
      lastSeq: db.prepare<[number], { n: number }>(LAST_SEQ_SQL),
      setPush: db.prepare<[string, string, string]>(
        `INSERT INTO push_configs (task_id, config_id, json) VALUES (?, ?, ?)
         ON CONFLICT (task_id, config_id) DO UPDATE SET json = excluded.json`,
      ),
      deletePush: db.prepare<[string, string]>("DELETE FROM push_configs WHERE task_id = ? AND config_id = ?"),
      addMemory: db.prepare<[string, string, number, string]>("INSERT OR IGNORE INTO memories (id, room_id, created_at, json) VALUES (?, ?, ?, ?)"),
      readRecord: db.prepare<[string, number], { value: string }>(`SELECT value FROM records WHERE key = ? AND expires_at > ${INT_PARAM}`),
      writeRecord: db.prepare<[string, string, number]>(
        "INSERT INTO records (key, value, expires_at) VALUES (?, ?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value, expires_at = excluded.expires_at",
      ),
      deleteRecord: db.prepare<[string]>("DELETE FROM records WHERE key = ?"),
      // A few expired records go with each claim and write: the table holds about the live ones without a sweeper.
      dropExpired: db.prepare<[number]>(`DELETE FROM records WHERE key IN (SELECT key FROM records WHERE expires_at <= ${INT_PARAM} LIMIT 16)`),
    };
    const stmt = this.#stmt;
    this.#commit = db.transaction((tasks: TaskRow[], events: EventRow[]) => {
      const numbers = new Map<string, number>();
      for (const [id, contextId, agentId, state, updatedAt, owner, json, statusAt] of tasks) {
        const pieces = chunksOf(json);
        const held = pieces ? JSON.stringify(statusAt === null ? {} : { status: { timestamp: statusAt } }) : json;
        const taskNo = stmt.upsertTask.get(id, contextId, agentId, state, updatedAt, owner, held, pieces ? pieces.length : null)!.task_no;
        for (const [n, piece] of (pieces ?? []).entries()) stmt.taskChunk.run(taskNo, n, piece);
        numbers.set(id, taskNo);
      }
      // Checked as it goes: a gap throws, and the transaction takes back everything this batch wrote before it.
      const ends = new Map<string, number>();
      for (const [taskId, seq, json] of events) {
        let taskNo = numbers.get(taskId);
        if (taskNo === undefined && (taskNo = stmt.taskNo.get(taskId)?.task_no) !== undefined) numbers.set(taskId, taskNo);
        const end = ends.get(taskId) ?? (taskNo === undefined ? 0 : stmt.lastSeq.get(taskNo)!.n);
        const append = continuesLog(taskId, seq, end);
        if (append && taskNo === undefined) throw eventWithoutTask(taskId, seq);
        if (append) {
          const pieces = chunksOf(json);
          stmt.insertEvent.run(taskNo!, seq, pieces ? "{}" : json, pieces ? pieces.length : null);
          for (const [n, piece] of (pieces ?? []).entries()) stmt.eventChunk.run(taskNo!, seq, n, piece);
        }
        ends.set(taskId, append ? seq : end);
      }
    });
  }

  /**
   * Whether the WAL wants the writer's upkeep: the checkpoint thread asked for its restart, or it passed the
   * writer's own bound. An inline connection's commits skip that upkeep, so such a commit goes to the writer.
   */
  get needsUpkeep(): boolean {
    if (this.#restartWanted && Atomics.load(this.#restartWanted, 0) === 1) return true;
    if (this.#walLimitBytes === undefined) return false;
    // A stat of the WAL was ~10% of a small send's inline commit (the hop, fourteenth pass): looked at again only
    // once this connection's commits since may have written what was left below the bound (at most WAL_STAT_BYTES:
    // the writer thread's commits grow the WAL too, and it bounds them itself).
    if (this.#unstatted > 0) return false;
    const left = this.#walLimitBytes - walBytes(this.#path);
    this.#unstatted = Math.min(left, WAL_STAT_BYTES);
    return left < 0;
  }

  /** One transaction for the batch; an event already stored is skipped, a gap fails it all. */
  commit(tasks: TaskRow[], events: EventRow[]): void {
    this.#commit(tasks, events);
    if (this.#inline) this.#unstatted -= walBound(tasks, events);
    // Large rows came as bytes this thread owns: freed now rather than at this thread's next collection, which a
    // thread that allocates little makes rare (a 10 MB echo left 50 MB of them here).
    for (const row of tasks) release(row[6]);
    for (const row of events) release(row[2]);
    if (this.#inline) return;
    try {
      if (this.#restartWanted && Atomics.load(this.#restartWanted, 0) === 1) this.#copyWal();
      // Asked or not: a copy that keeps finding the checkpoint thread mid-pass must not let the WAL grow unbounded.
      if (this.#walLimitBytes !== undefined && walBytes(this.#path) > this.#walLimitBytes) this.#restartWal();
    } catch {
      // The batch is committed; reporting it failed would have it written again. The next commit tries again.
    }
  }

  setPushConfig(taskId: string, configId: string, json: string): void {
    this.#stmt.setPush.run(taskId, configId, json);
  }

  deletePushConfig(taskId: string, configId: string): void {
    this.#stmt.deletePush.run(taskId, configId);
  }

  /** An id already stored is a no-op. */
  addMemory(id: string, roomId: string, createdAt: number, json: string): void {
    this.#stmt.addMemory.run(id, roomId, createdAt, json);
  }

  /** One writer per file: the read and the write of a claim cannot interleave with another claim. */
  claimRecord(key: string, value: string, now: number, expiresAt: number): string | undefined {
    const held = this.#stmt.readRecord.get(key, now)?.value;
    if (held !== undefined) return held;
    this.#stmt.writeRecord.run(key, value, expiresAt);
    this.#stmt.dropExpired.run(now);
    return undefined;
  }

  readRecord(key: string, now: number): string | undefined {
    return this.#stmt.readRecord.get(key, now)?.value;
  }

  /** `value` undefined deletes. `now`: the caller's clock, for the expired records that go with it. */
  writeRecord(key: string, value: string | undefined, expiresAt: number, now: number): void {
    if (value === undefined) this.#stmt.deleteRecord.run(key);
    else this.#stmt.writeRecord.run(key, value, expiresAt);
    this.#stmt.dropExpired.run(now);
  }

  close(): void {
    if (!this.#inline) return closeDatabase(this.#file, this.#path);
    // The pid file and the lock are the writer's.
    if (this.#db.open) this.#db.close();
  }

  /**
   * Copies what the checkpoint thread has not, on this connection, between commits: no lock to wait for, and
   * little to copy. Once all of it is, the next commit starts the WAL over. Busy (the checkpoint thread is in
   * a pass; SQLite says so at once): the next commit tries again. Short of the end (a reader still needs older
   * frames): the request is answered all the same, and the checkpoint thread's next pass asks again, so a long
   * read costs at most one copy per pass, not one per commit.
   */
  #copyWal(): void {
    const [result] = this.#db.pragma("wal_checkpoint(PASSIVE)") as Array<{ busy: number }>;
    if (result && !result.busy) Atomics.store(this.#restartWanted!, 0, 0);
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
}

/**
 * A row's JSON in pieces of at most CHUNK_BYTES bytes (of UTF-8; a string's, of at most CHUNK_BYTES / 3
 * characters), each cut between two characters, so that each is text of its own; undefined for JSON that
 * fits in one. Bytes are cut as views of the row's bytes (no copy).
 */
export function chunksOf(json: RowJson): RowJson[] | undefined {
  if (typeof json === "string") {
    const most = Math.floor(CHUNK_BYTES / 3);
    if (json.length <= most) return undefined;
    const pieces: string[] = [];
    for (let at = 0; at < json.length; ) {
      let end = Math.min(at + most, json.length);
      // Not between the two halves of a surrogate pair.
      if (end < json.length && (json.charCodeAt(end - 1) & 0xfc00) === 0xd800) end--;
      pieces.push(json.slice(at, end));
      at = end;
    }
    return pieces;
  }
  if (json.length <= CHUNK_BYTES) return undefined;
  const pieces: Uint8Array[] = [];
  for (let at = 0; at < json.length; ) {
    let end = Math.min(at + CHUNK_BYTES, json.length);
    // Not inside a character: back to the start of the one a continuation byte (10xxxxxx) belongs to.
    while (end < json.length && (json[end]! & 0xc0) === 0x80) end--;
    pieces.push(json.subarray(at, end));
    at = end;
  }
  return pieces;
}

/** Frees the bytes of a row's JSON (a detached buffer holds nothing); a string is left to the collector. */
function release(json: RowJson): void {
  if (typeof json !== "string") (json.buffer as ArrayBuffer & { transfer(length: number): ArrayBuffer }).transfer(0);
}
