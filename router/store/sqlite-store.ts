import { existsSync } from "node:fs";
import { Worker } from "node:worker_threads";
import type { LoggedEvent, PushNotificationConfig, Task } from "../core/model.js";
import type { CommitBatch, ListTasksFilter, ListTasksQuery, MemoryRecord, MemoryRecordStore, TaskStore } from "../core/store.js";
import { handedOver, noteEventBytes } from "../core/event-bytes.js";
import { checkKey, pushConfigId, timeMs } from "./common.js";
import { SqliteRecords } from "./expiring-records.js";
import { isFile } from "./sqlite-open.js";
import { eventRowJson, parseTaskRow, taskRowJson, TRANSFER_MIN_CHARS, utf8 } from "./sqlite-row-json.js";
import { SqliteTables } from "./sqlite-tables.js";
import { openForReads, SqliteQueries } from "./sqlite-queries.js";
import {
  DEFAULT_CHECKPOINTS,
  fromWireError,
  restartFlag,
  type CheckpointOptions,
  type EventRow,
  type RowJson,
  type StoreAnswer,
  type StoreOp,
  type StoreThreadData,
  type TaskRow,
} from "./sqlite-protocol.js";

/**
 * The workers' V8 heaps. Everything the writer holds is short-lived (each call's rows), but V8 sizes a heap by
 * its allocation rate: a writer passing 200 MB of large events through would otherwise keep a young
 * generation of up to 48 MB and promote whatever a scavenge caught in flight, all of it router RSS. A small
 * young generation collects those rows at once. The old generation's cap is far above what either keeps
 * (prepared statements, one call's rows).
 */
const WRITER_HEAP = { maxYoungGenerationSizeMb: 8, maxOldGenerationSizeMb: 512 };
const CHECKPOINTER_HEAP = { maxYoungGenerationSizeMb: 1, maxOldGenerationSizeMb: 64 };

/**
 * Commits of up to this many rows (tasks and events) and bytes of rows (JSON) run on the router's thread
 * while the writer thread is idle. A small commit costs less SQLite work (~0.1 ms) than the trip to the writer
 * thread and back (two thread wake-ups: p50 0.2-0.3 ms, p99 1-1.7 ms on two busy cores), and every commit
 * that goes to the other connection makes both connections read again the pages it changed (SQLite drops a
 * connection's page cache when another one commits): at 50 clients the hop's commits alternated, and each
 * re-read its B-tree pages with a syscall apiece (docs/benchmarks.md, sixth pass). The bounds keep a commit
 * on the event loop at about a millisecond: SQLite's cost goes by rows when they are small and scattered over
 * many tasks (128 such rows ~1-1.5 ms), by bytes when they are large (four 64 KB events ~1 ms).
 */
export const DEFAULT_INLINE_MAX_ROWS = 128;
export const DEFAULT_INLINE_MAX_BYTES = 256 * 1024;

/** SqliteStore.open's options. */
export interface SqliteStoreOptions {
  /** The checkpoint thread's cadence (the defaults are the measured ones; tests shorten them). */
  checkpoints?: Partial<CheckpointOptions>;
  /** The largest commit (bytes of rows) made on the caller's thread while the writer is idle; 0: none. */
  inlineMaxBytes?: number;
  /** The most rows (tasks and events) of a commit made on the caller's thread (see DEFAULT_INLINE_MAX_ROWS). */
  inlineMaxRows?: number;
}

interface Pending {
  resolve: (value: unknown) => void;
  reject: (err: Error) => void;
}

/**
 * A TaskStore in one SQLite file (better-sqlite3, WAL mode): the default `./data/router.db`.
 * `SqliteStore.open(path)` creates the file's parent directory; `":memory:"` gives a private in-memory database.
 *
 * Writes go to a worker thread that owns the writing connection (router/store/sqlite-worker.ts): SQLite is
 * synchronous, and its inserts would otherwise stall every stream of the router while they run; they are answered
 * in the order they were made. A small commit made while the writer has nothing to do is the exception: it runs
 * here, on a second writing connection (`inlineMaxBytes`, `inlineMaxRows`), because the round trip to the writer
 * costs more than the commit, and keeps this connection's page cache warm. It never waits for a lock (one taken
 * sends it to the writer) and leaves the WAL's upkeep to the writer (a commit made when the WAL wants it goes there
 * too). WAL checkpoints, where SQLite waits for the disk, run on a second thread with a connection of their own
 * (sqlite-checkpointer.ts), beside the commits rather than ahead of them. Reads run here (sqlite-queries.ts): a WAL
 * reader never waits for the writer, and a read costs no trip to another thread; a read made after a commit
 * resolved sees it. They share the small commits' connection, whose page cache its own commits keep warm (SQLite
 * drops a connection's cache whenever another one has committed); with `inlineMaxBytes: 0`, a read-only one.
 * Neither waits for a lock: a read that meets one goes to the writer thread. (A private `:memory:` database lives
 * on the writer's connection alone, which serves its reads too.) Serializing, and parsing what comes back, stays on
 * the caller's thread: an event's JSON is the same string its live streams count (router/core/event-bytes.ts).
 *
 * One router per file: a file store holds an exclusive SQLite lock on `PATH.lock` from open to close, so a
 * second store on the file, in this process or another, fails to open with "store sqlite:PATH is in use by
 * another a2a-router (pid N)". The lock is the operating system's, dropped when its process dies, so a router
 * killed with SIGKILL never blocks the next start. `PATH.pid` only names the holder for that message (and is
 * removed on close); `PATH.lock` stays (removing it could let two routers lock two different files). Other
 * programs may read the database while the router runs (the sqlite3 shell, a backup).
 *
 * A commit is ONE transaction for the whole batch. An event whose seq is already in its log is skipped and one
 * that would leave a gap fails the batch (see `continuesLog`), so committing a batch twice stores it once.
 * Push configs come back ordered by config id; adding a memory whose id is already stored is a no-op.
 */
export class SqliteStore implements TaskStore, MemoryRecordStore {
  readonly kind = "sqlite" as const;
  readonly path: string;
  #worker: Worker;
  #checkpointer: Worker | undefined;
  /** This thread's reads (file stores): on the inline connection, or a read-only one without it. */
  #reads: SqliteQueries | undefined;
  #pending = new Map<number, Pending>();
  /** This thread's writing connection for small commits (file stores). */
  #inline: SqliteTables | undefined;
  #inlineMaxBytes: number;
  #inlineMaxRows: number;
  #nextId = 1;
  #commitCounts = { inline: 0, writer: 0 };
  #closed: Promise<void> | undefined;
  /** Why the worker is gone, once it is: every later call fails with it. */
  #gone: Error | undefined;
  /** Expiring records (idempotency keys, chat sessions), in the file's `records` table. */
  readonly records = new SqliteRecords((op, ...args) => this.#call(op, ...args));

  private constructor(
    path: string,
    worker: Worker,
    checkpointer: Worker | undefined,
    reads: SqliteQueries | undefined,
    inline: SqliteTables | undefined,
    inlineMax: { bytes: number; rows: number },
  ) {
    this.path = path;
    this.#reads = reads;
    this.#inline = inline;
    this.#inlineMaxBytes = inlineMax.bytes;
    this.#inlineMaxRows = inlineMax.rows;
    this.#worker = worker;
    this.#checkpointer = checkpointer;
    checkpointer?.unref();
    // Only a bug of ours gets here; a store that stopped checkpointing would fill the disk, so it stops.
    checkpointer?.on("error", (err) => this.#lost(new Error(`the SQLite store's checkpoint worker failed: ${err.message}`, { cause: err })));
    worker.on("message", (answer: StoreAnswer) => this.#answered(answer));
    worker.on("error", (err) => this.#lost(new Error(`the SQLite store's worker failed: ${err.message}`, { cause: err })));
    worker.on("exit", () => this.#lost(new Error(`the SQLite store ${path} is closed`)));
    worker.unref();
  }

  /**
   * Opens the store on its worker threads; rejects with one line naming the path when the file cannot be
   * opened, or naming the holder's pid when another router holds it.
   */
  static async open(path: string, options: SqliteStoreOptions = {}): Promise<SqliteStore> {
    const checkpoints = { ...DEFAULT_CHECKPOINTS, ...options.checkpoints };
    const inlineMaxBytes = options.inlineMaxBytes ?? DEFAULT_INLINE_MAX_BYTES;
    // Both start at once (a worker takes a while to boot); the checkpointer opens the file once the writer has.
    // A private in-memory database has no WAL to checkpoint (and no other connection could reach it).
    const workerData: StoreThreadData = { path, checkpoints, restartWanted: restartFlag() };
    const checkpointer = isFile(path) ? new Worker(workerModule("sqlite-checkpointer.js"), { workerData, resourceLimits: CHECKPOINTER_HEAP }) : undefined;
    const writer = new Worker(workerModule("sqlite-worker.js"), { workerData, resourceLimits: WRITER_HEAP });
    // Listening from the start: a worker that fails to boot reports it at once.
    const checkpointerReady = checkpointer && opened(checkpointer);
    checkpointerReady?.catch(() => undefined); // awaited below, unless the writer failed first
    let reads: SqliteQueries | undefined;
    let inline: SqliteTables | undefined;
    try {
      await opened(writer);
      checkpointer?.postMessage("open");
      await checkpointerReady;
      if (isFile(path) && inlineMaxBytes > 0) inline = new SqliteTables(path, checkpoints.restartFrames, workerData.restartWanted, true);
      if (isFile(path)) reads = inline?.reads ?? new SqliteQueries(openForReads(path));
    } catch (err) {
      reads?.close();
      await Promise.all([writer.terminate(), checkpointer?.terminate()]);
      throw err;
    }
    return new SqliteStore(path, writer, checkpointer, reads, inline, { bytes: inlineMaxBytes, rows: options.inlineMaxRows ?? DEFAULT_INLINE_MAX_ROWS });
  }

  async commit(batch: CommitBatch): Promise<void> {
    // Serialize first: a batch that cannot be serialized fails before the transaction starts.
    let bytes = 0;
    const largeEvents = new Set<string>();
    const events = batch.events.map((e): EventRow => {
      const json = eventRowJson(e);
      bytes += json.length;
      if (typeof json !== "string") largeEvents.add(e.taskId);
      return [e.taskId, e.seq, json];
    });
    const tasks = batch.tasks.map((t): TaskRow => {
      const json = taskRowJson(t, largeEvents.has(t.id));
      bytes += json.length;
      const statusAt = typeof t.status.timestamp === "string" ? t.status.timestamp : null;
      return [t.id, t.contextId, t.agentId, t.status.state, timeMs("updatedAt", t.updatedAt), t.owner ?? null, json, statusAt];
    });
    if (bytes <= this.#inlineMaxBytes && tasks.length + events.length <= this.#inlineMaxRows && this.#commitInline(tasks, events)) {
      this.#commitCounts.inline++;
      for (const e of batch.events) handedOver(e);
      return;
    }
    this.#commitCounts.writer++;
    // Large JSON crosses to the writer as bytes it takes over: posted as a string it would be copied twice
    // more (into the message, then into the writer's heap, garbage there until its own GC runs).
    const transfer: ArrayBuffer[] = [];
    const moved = (json: RowJson): RowJson => {
      if (typeof json !== "string") {
        transfer.push(json.buffer as ArrayBuffer);
        return json;
      }
      if (json.length < TRANSFER_MIN_CHARS) return json;
      const bytes = utf8(json);
      transfer.push(bytes.buffer as ArrayBuffer);
      return bytes;
    };
    for (const row of tasks) row[6] = moved(row[6]);
    for (const row of events) row[2] = moved(row[2]);
    // Returned, not awaited: this function's frame, and with it the rows (an array and a copy of each event's
    // JSON in the writer's message), ends here instead of living until the writer answers, ~5% of what survived
    // the relay's scavenges (fifteenth pass).
    const answered = this.#callTransferring(transfer, "commit", tasks, events) as Promise<void>;
    // The writer has its copy: the events' own JSON is let go while they wait for its answer (see handedOver).
    for (const e of batch.events) handedOver(e);
    return answered;
  }

  /** How many commits ran on the caller's thread and how many went to the writer thread (a copy). */
  get commitCounts(): { inline: number; writer: number } {
    return { ...this.#commitCounts };
  }

  async getTask(id: string): Promise<Task | undefined> {
    checkKey("taskId", id);
    const json = (await this.#read("getTask", (q) => q.getTask(id), id)) as string | undefined;
    return json === undefined ? undefined : parseTaskRow(json);
  }

  async readEvents(taskId: string, afterSeq: number, limit: number, maxBytes?: number): Promise<LoggedEvent[]> {
    checkKey("taskId", taskId);
    const rows = (await this.#read("readEvents", (q) => q.readEvents(taskId, afterSeq, limit, maxBytes), taskId, afterSeq, limit, maxBytes)) as string[];
    return rows.map((json) => {
      const event = JSON.parse(json) as LoggedEvent;
      // A stream catching up counts the event by the JSON it was read as (CONTRACT 12).
      noteEventBytes(event, json.length);
      return event;
    });
  }

  async listTasks(query: ListTasksQuery): Promise<Task[]> {
    return ((await this.#read("listTasks", (q) => q.listTasks(query), query)) as string[]).map(parseTaskRow);
  }

  async countTasks(filter: ListTasksFilter): Promise<number> {
    return (await this.#read("countTasks", (q) => q.countTasks(filter), filter)) as number;
  }

  /** Oldest update first. */
  async listUnfinishedTasks(): Promise<Task[]> {
    return ((await this.#read("listUnfinishedTasks", (q) => q.listUnfinishedTasks())) as string[]).map(parseTaskRow);
  }

  async setPushConfig(taskId: string, config: PushNotificationConfig): Promise<void> {
    checkKey("taskId", taskId);
    await this.#call("setPushConfig", taskId, pushConfigId(config), JSON.stringify(config));
  }

  /** Ordered by config id. */
  async getPushConfigs(taskId: string): Promise<PushNotificationConfig[]> {
    checkKey("taskId", taskId);
    return parse<PushNotificationConfig>(await this.#read("getPushConfigs", (q) => q.getPushConfigs(taskId), taskId));
  }

  async deletePushConfig(taskId: string, configId: string): Promise<void> {
    checkKey("taskId", taskId);
    checkKey("configId", configId);
    await this.#call("deletePushConfig", taskId, configId);
  }

  async addMemory(memory: MemoryRecord): Promise<void> {
    await this.#call("addMemory", memory.id, memory.roomId, memory.createdAt, JSON.stringify(memory));
  }

  async listMemories(roomId: string, limit?: number): Promise<MemoryRecord[]> {
    return parse<MemoryRecord>(await this.#read("listMemories", (q) => q.listMemories(roomId, limit), roomId, limit));
  }

  /** Closes the file (after every call made before) and ends the workers; idempotent. */
  close(): Promise<void> {
    this.#closed ??= this.#close();
    return this.#closed;
  }

  async #close(): Promise<void> {
    const lost = this.#gone !== undefined;
    // Calls made from now on are refused; those made before go on, in order, ahead of the close.
    this.#gone ??= new Error(`the SQLite store ${this.path} is closed`);
    this.#reads?.close();
    this.#inline?.close();
    const checkpointer = this.#checkpointer;
    if (checkpointer) {
      // Its connection closes first, so the writer's close is the last one and leaves no WAL behind.
      const exited = new Promise((resolve) => checkpointer.once("exit", resolve));
      checkpointer.ref(); // the close is awaited: the process waits for it
      checkpointer.postMessage("stop");
      await exited;
    }
    if (lost) return;
    await this.#send("close", []).catch(() => undefined);
    await this.#worker.terminate();
  }

  /**
   * Commits on this thread's connection when the writer is idle (nothing of it is in flight, so the order of
   * writes holds) and the WAL wants none of its upkeep; false: the writer's to do (a lock held elsewhere too).
   */
  #commitInline(tasks: TaskRow[], events: EventRow[]): boolean {
    const inline = this.#inline;
    if (!inline || this.#gone || this.#pending.size > 0 || inline.needsUpkeep) return false;
    try {
      inline.commit(tasks, events);
      return true;
    } catch (err) {
      // Taken back whole (one transaction): the writer, which waits for locks, makes it again.
      if (isBusy(err)) return false;
      throw err;
    }
  }

  /**
   * A read: on this thread's connection when there is one (no trip to the writer; a read after a commit
   * resolved sees it, the commit being in the file's WAL by then), else on the writer's. A WAL reader hardly
   * ever meets a lock (another program holding the file exclusively, a recovery); when it does, the read goes
   * to the writer thread, which waits for it, rather than holding the event loop or failing.
   */
  #read(op: StoreOp, query: (q: SqliteQueries) => unknown, ...args: unknown[]): unknown {
    if (this.#gone) throw this.#gone;
    if (!this.#reads) return this.#call(op, ...args);
    try {
      return query(this.#reads);
    } catch (err) {
      if (isBusy(err)) return this.#call(op, ...args);
      throw err;
    }
  }

  #call(op: StoreOp, ...args: unknown[]): Promise<unknown> {
    if (this.#gone) return Promise.reject(this.#gone);
    return this.#send(op, args);
  }

  /** A call whose `transfer` buffers move to the writer (they are unusable here afterwards). */
  #callTransferring(transfer: ArrayBuffer[], op: StoreOp, ...args: unknown[]): Promise<unknown> {
    if (this.#gone) return Promise.reject(this.#gone);
    return this.#send(op, args, transfer);
  }

  #send(op: StoreOp, args: unknown[], transfer: ArrayBuffer[] = []): Promise<unknown> {
    const id = this.#nextId++;
    return new Promise((resolve, reject) => {
      // Referenced while a call is out: a process must not exit with a commit half way.
      if (this.#pending.size === 0) this.#worker.ref();
      this.#pending.set(id, { resolve, reject });
      this.#worker.postMessage({ id, op, args }, transfer);
    });
  }

  #answered(answer: StoreAnswer): void {
    const call = this.#pending.get(answer.id);
    if (!call) return;
    this.#pending.delete(answer.id);
    if (this.#pending.size === 0) this.#worker.unref();
    if ("error" in answer) call.reject(fromWireError(answer.error));
    else call.resolve(answer.value);
  }

  #lost(err: Error): void {
    this.#gone ??= err;
    for (const call of this.#pending.values()) call.reject(this.#gone);
    this.#pending.clear();
  }
}

/** SQLite's "a lock is taken" (SQLITE_BUSY and its extended codes). */
function isBusy(err: unknown): boolean {
  const code = (err as { code?: unknown }).code;
  return typeof code === "string" && code.startsWith("SQLITE_BUSY");
}

/** Resolves once a worker says it opened the file; rejects with why it could not. */
function opened(worker: Worker): Promise<void> {
  return new Promise((resolve, reject) => {
    const failed = (err: Error): void => reject(err);
    worker.once("error", failed);
    worker.once("message", (answer: StoreAnswer) => {
      worker.off("error", failed);
      if ("error" in answer) reject(fromWireError(answer.error));
      else resolve();
    });
  });
}

/**
 * A worker's module: beside this one once compiled. Run from TypeScript sources (the tests, through
 * ts-jest), it is the build's copy, which `npm test` builds first.
 */
function workerModule(name: string): URL {
  const beside = new URL(`./${name}`, import.meta.url);
  return existsSync(beside) ? beside : new URL(`../../dist/router/store/${name}`, import.meta.url);
}

function parse<T>(rows: unknown): T[] {
  return (rows as string[]).map((json) => JSON.parse(json) as T);
}
