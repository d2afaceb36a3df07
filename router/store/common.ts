/**
 * What the three stores share so they behave alike: argument checks, the task-list filters and order,
 * and the key a push config is stored under. Pure functions, no I/O.
 */
import { TERMINAL_STATES, type PushNotificationConfig, type Task } from "../core/model.js";
import type { ListTasksFilter, ListTasksQuery } from "../core/store.js";

/** The config id a push config without an `id` is stored under. */
export const DEFAULT_PUSH_CONFIG_ID = "default";

/** Terminal states as an array (for SQL `NOT IN` lists). */
export const TERMINAL_STATE_LIST: readonly string[] = [...TERMINAL_STATES];

/** Throws a RangeError naming `field` unless `value` is a non-negative integer. */
export function checkCount(field: string, value: number): void {
  if (!Number.isSafeInteger(value) || value < 0) {
    throw new RangeError(`${field} must be a non-negative integer: got ${String(value)}`);
  }
}

/** A validated listTasks cursor: the last listed task's updatedAt as epoch milliseconds, and its id. */
export interface CursorKey {
  ms: number;
  id: string;
}

/** Validates a list query; returns its cursor (undefined when absent), failing with a message naming the field. */
export function checkListQuery(query: ListTasksQuery): CursorKey | undefined {
  checkCount("limit", query.limit);
  const before = query.before;
  if (before === undefined) return undefined;
  if (typeof before.id !== "string") throw new TypeError(`before.id must be a string: got ${typeof before.id}`);
  return { ms: timeMs("before.updatedAt", before.updatedAt), id: before.id };
}

/** Whether a task passes the list filters. */
export function matchesFilters(task: Task, filter: ListTasksFilter): boolean {
  return (
    (filter.contextId === undefined || task.contextId === filter.contextId) &&
    (filter.state === undefined || task.status.state === filter.state) &&
    (filter.agentId === undefined || task.agentId === filter.agentId) &&
    (filter.owner === undefined || task.owner === filter.owner) &&
    (filter.statusSinceMs === undefined || statusMs(task.status.timestamp, task.updatedAt) >= filter.statusSinceMs)
  );
}

/**
 * When a task's status last changed, in epoch ms: its status timestamp (agents may set their own, in any
 * ISO form), else its updatedAt. The SQLite store runs this same function inside its queries.
 */
export function statusMs(statusTimestamp: unknown, updatedAt: string | number): number {
  const ms = typeof statusTimestamp === "string" ? Date.parse(statusTimestamp) : NaN;
  return Number.isNaN(ms) ? (typeof updatedAt === "number" ? updatedAt : Date.parse(updatedAt)) : ms;
}

/**
 * Compares ids by Unicode code point, which is the order of their UTF-8 bytes: how SQLite (BINARY collation)
 * and Redis (equal-score members) order them. Plain `<` compares UTF-16 units and disagrees on ids mixing
 * astral characters with U+E000..U+FFFF, which would make a cursor skip or repeat tasks in one store only.
 */
export function compareIds(a: string, b: string): number {
  for (let i = 0; i < a.length && i < b.length; i++) {
    const x = a.codePointAt(i)!;
    const y = b.codePointAt(i)!;
    if (x !== y) return x - y;
    if (x > 0xffff) i++; // both sides hold the same surrogate pair
  }
  return a.length - b.length;
}

/**
 * Sort order of listTasks: newest `updatedAt` first (compared as epoch milliseconds, the unit all three stores
 * index by), ties by id descending (as SQLite's `ORDER BY ... id DESC` and Redis's ZREVRANGE order them).
 */
export function newestFirst(a: Task, b: Task): number {
  const byTime = Date.parse(b.updatedAt) - Date.parse(a.updatedAt);
  return byTime !== 0 ? byTime : compareIds(b.id, a.id);
}

/** Whether a task comes strictly after the cursor in newestFirst order (it belongs on a later page). */
export function isAfterCursor(task: Task, cursor: CursorKey): boolean {
  const ms = Date.parse(task.updatedAt);
  return ms < cursor.ms || (ms === cursor.ms && compareIds(task.id, cursor.id) < 0);
}

/** Whether a task's state is not terminal (it belongs in listUnfinishedTasks). */
export function isUnfinished(task: Task): boolean {
  return !TERMINAL_STATES.has(task.status.state);
}

/** The id a push config is stored under. */
export function pushConfigId(config: PushNotificationConfig): string {
  const id = config.id ?? DEFAULT_PUSH_CONFIG_ID;
  checkKey("config.id", id);
  return id;
}

/**
 * Throws a TypeError naming `field` unless `value` is a string. The last guard before a value becomes a key,
 * a bind parameter or a command argument: the layers above validate what clients send, and this keeps one
 * request that slipped past them from corrupting stored data (an array spread into HSET's arguments, a
 * SQLite bind of an object).
 */
export function checkKey(field: string, value: unknown): asserts value is string {
  if (typeof value !== "string") throw new TypeError(`${field} must be a string: got ${Array.isArray(value) ? "array" : typeof value}`);
}

/** Epoch milliseconds of an ISO time, failing with a message naming the field when it does not parse. */
export function timeMs(field: string, iso: string): number {
  const ms = Date.parse(iso);
  if (Number.isNaN(ms)) throw new RangeError(`${field} must be an ISO time: got ${iso}`);
  return ms;
}

/** Throws a RangeError naming the event unless `seq` is a positive integer (logs start at seq 1). */
export function checkSeq(taskId: string, seq: number): void {
  if (!Number.isSafeInteger(seq) || seq < 1) {
    throw new RangeError(`seq of an event of task ${taskId} must be a positive integer: got ${String(seq)}`);
  }
}

/**
 * Whether an event belongs at the end of its task's log, which ends at seq `end`: true for seq end+1 (append),
 * false for seq <= end (already stored: a retried batch, so the stored copy is kept), and a throw for anything
 * further on, which would leave a gap that readEvents (seq n at position n) cannot represent.
 * Makes commit idempotent: a batch resent after an unclear outcome (a Redis reconnect, the commit queue's
 * retry) lands once. COMMIT_LUA in redis-store.ts applies the same rule with the same message.
 */
export function continuesLog(taskId: string, seq: number, end: number): boolean {
  checkSeq(taskId, seq);
  if (seq <= end) return false;
  if (seq === end + 1) return true;
  throw new RangeError(`event seq ${seq} of task ${taskId} would leave a gap: its stored log ends at seq ${end}`);
}

/**
 * The error for an event that would start the log of a task neither in its batch nor stored: a log belongs to
 * a task (the SQLite store keys it by the task's row), and the engine commits a task with its first events.
 * COMMIT_LUA in redis-store.ts says the same.
 */
export function eventWithoutTask(taskId: string, seq: number): RangeError {
  return new RangeError(`event seq ${seq} of task ${taskId} has no task: a task is committed with its first events`);
}

/**
 * The events of a batch that extend their logs, by `continuesLog`, given each task's stored log length;
 * throws before anything is written when one would leave a gap or start the log of a task that `hasTask` (in
 * the batch or stored) denies.
 */
export function planAppends<E extends { taskId: string; seq: number }>(
  events: readonly E[],
  storedEnd: (taskId: string) => number,
  hasTask: (taskId: string) => boolean,
): E[] {
  const ends = new Map<string, number>();
  const appends: E[] = [];
  for (const event of events) {
    const end = ends.get(event.taskId) ?? storedEnd(event.taskId);
    const append = continuesLog(event.taskId, event.seq, end);
    if (append && end === 0 && !hasTask(event.taskId)) throw eventWithoutTask(event.taskId, event.seq);
    if (append) appends.push(event);
    ends.set(event.taskId, append ? event.seq : end);
  }
  return appends;
}

/**
 * How many of a page's events (given their JSON sizes, in order) fit in `maxBytes`: always at least one, so
 * an event larger than the budget is still served, alone (readEvents' byte bound, CONTRACT 12).
 */
export function fitting(sizes: number[], maxBytes: number): number {
  let bytes = 0;
  for (let i = 0; i < sizes.length; i++) {
    if (i > 0 && bytes + sizes[i]! > maxBytes) return i;
    bytes += sizes[i]!;
  }
  return sizes.length;
}

/** The last guard of an expiring record's arguments (ExpiringRecordStore): string key and value, a count of ms. */
export function checkRecord(key: unknown, value: unknown, ttlMs: number): void {
  checkKey("key", key);
  if (value !== undefined) checkKey("value", value);
  checkCount("ttlMs", ttlMs);
}
