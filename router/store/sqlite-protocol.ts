/**
 * What the SQLite store's two threads say to each other (router/store/sqlite-store.ts on the caller's thread,
 * sqlite-worker.ts beside its connection): calls by name with plain arguments, answers as plain values, and
 * errors flattened to what survives a thread boundary.
 */

/**
 * A row's JSON: text, or (a large one on its way to the writer thread) its UTF-8 bytes, which move to that
 * thread without a copy; the statements store either as TEXT.
 */
export type RowJson = string | Uint8Array;
/**
 * A task row: id, context id, agent id, state, updatedAt (epoch ms), owner (null: none), the task's JSON, its
 * status timestamp (null: none; what a row stored in pieces keeps in its `json`, for the listing's filter).
 */
export type TaskRow = [string, string, string, string, number, string | null, RowJson, string | null];
/** An event row: task id, seq, the event's JSON. */
export type EventRow = [string, number, RowJson];

/** The checkpoint cadence (SqliteStore's `checkpoints` option). */
export interface CheckpointOptions {
  /** How often the WAL is copied: at the relay's write rate, a few MB each time. */
  everyMs: number;
  /** WAL pages (4 KB) past which the WAL is made to start over. */
  restartFrames: number;
}

export const DEFAULT_CHECKPOINTS: CheckpointOptions = { everyMs: 100, restartFrames: 16_384 };

/**
 * What both store threads are started with. `restartWanted` (shared memory, one slot) is raised by the
 * checkpoint thread once the WAL has passed `restartFrames`, and lowered by the writer once it has copied the
 * rest itself, between two of its commits (sqlite-checkpointer.ts says why there).
 */
export interface StoreThreadData {
  path: string;
  checkpoints: CheckpointOptions;
  restartWanted: Int32Array;
}

/** A `restartWanted` for a store's threads to share. */
export function restartFlag(): Int32Array {
  return new Int32Array(new SharedArrayBuffer(Int32Array.BYTES_PER_ELEMENT));
}

/** The writer's operations (SqliteTables' methods; the expiring records are read there too, next to their writes). */
export const WRITE_OPS = ["commit", "setPushConfig", "deletePushConfig", "addMemory", "claimRecord", "readRecord", "writeRecord", "close"] as const;
/**
 * Reads (SqliteQueries' methods): the writer serves a private in-memory database's, and those that met a lock
 * on the router's thread.
 */
export const READ_OPS = ["getTask", "readEvents", "listTasks", "countTasks", "listUnfinishedTasks", "getPushConfigs", "listMemories"] as const;
export type StoreOp = (typeof WRITE_OPS)[number] | (typeof READ_OPS)[number];

export interface StoreCall {
  id: number;
  op: StoreOp;
  args: unknown[];
}

/** An answer to call `id`; id 0 answers the opening of the file. */
export type StoreAnswer = { id: number; value: unknown } | { id: number; error: WireError };

/** An error as it crosses the thread boundary: its class name (of the built-ins), message and code. */
export interface WireError {
  name: string;
  message: string;
  code?: string;
}

export function toWireError(err: unknown): WireError {
  const e = err instanceof Error ? err : new Error(String(err));
  const code = (e as { code?: unknown }).code;
  return { name: e.name, message: e.message, ...(typeof code === "string" && { code }) };
}

/**
 * The error again, of the same built-in class (a RangeError stays one: a log gap is reported that way) and
 * with its SQLite code, its stack the caller's.
 */
export function fromWireError(wire: WireError): Error {
  const Class = wire.name === "RangeError" ? RangeError : wire.name === "TypeError" ? TypeError : Error;
  const err = new Class(wire.message);
  if (wire.code !== undefined) Object.assign(err, { code: wire.code });
  return err;
}
