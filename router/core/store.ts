import type { LoggedEvent, PushNotificationConfig, Task } from "./model.js";

/** One tick's worth of writes: new or changed task snapshots and the events appended to their logs. */
export interface CommitBatch {
  tasks: Task[];
  events: LoggedEvent[];
}

/**
 * What a commit reports beyond success. `fenced`: tasks whose writes the store refused because the writer no
 * longer holds their turn lease (a store shared by several routers, router/cluster); nothing of those tasks
 * in the batch was written, and the rest of the batch was. Stores of one process never fence.
 */
export interface CommitResult {
  fenced: string[];
}

/** The filters of a task listing; an absent member matches every task. */
export interface ListTasksFilter {
  contextId?: string;
  state?: string;
  agentId?: string;
  /** Only tasks created by this API-key principal (Task.owner). */
  owner?: string;
  /**
   * Only tasks whose status timestamp is at or after this time, in epoch milliseconds (v1.0 ListTasks
   * `statusTimestampAfter`). A task whose status has no readable timestamp is judged by its updatedAt.
   */
  statusSinceMs?: number;
}

/**
 * A position in listTasks's order (updatedAt descending, then id descending): the last task of the previous
 * page. Both members are needed because many tasks can share one updatedAt millisecond.
 */
export interface TaskCursor {
  /** ISO time, compared as epoch milliseconds. */
  updatedAt: string;
  id: string;
}

export interface ListTasksQuery extends ListTasksFilter {
  /** Only tasks strictly after this cursor in the listing order (cursor paging). */
  before?: TaskCursor;
  limit: number;
}

/** A conversation entry of a hosted agent (the Eliza runtime's memories). */
export interface MemoryRecord {
  id: string;
  roomId: string;
  agentId: string;
  role: "user" | "assistant";
  content: Record<string, unknown>;
  createdAt: number;
}

/**
 * Where tasks, their event logs and push configs live. Small and async so memory, SQLite and Redis all
 * fit; every implementation passes tests/store.contract.ts. Implementations copy on save and on load:
 * callers may mutate what they pass in or get back.
 */
export interface TaskStore {
  readonly kind: "memory" | "sqlite" | "redis";
  /**
   * Writes a batch atomically: either every task and event in it is stored or none is (less the fenced
   * tasks a shared store reports, which are left out whole). A task's first events come with the task, in
   * the same batch or after it: a batch that would start the log of an unknown task is refused.
   */
  commit(batch: CommitBatch): Promise<CommitResult | void>;
  getTask(id: string): Promise<Task | undefined>;
  /**
   * Events with seq > afterSeq, ascending, at most `limit`; with `maxBytes`, also no more than fit in that
   * many bytes of their stored JSON, but always at least one (a stream catching up reads by bytes, CONTRACT 12).
   */
  readEvents(taskId: string, afterSeq: number, limit: number, maxBytes?: number): Promise<LoggedEvent[]>;
  /** Newest `updatedAt` first, ties by id descending (ids compared by code point, as UTF-8 bytes sort). */
  listTasks(query: ListTasksQuery): Promise<Task[]>;
  /** How many tasks match the filters, over all pages (a listing's `totalSize`). */
  countTasks(filter: ListTasksFilter): Promise<number>;
  /** Tasks not in a terminal state (used at start-up to fail what a previous run left in flight). */
  listUnfinishedTasks(): Promise<Task[]>;
  setPushConfig(taskId: string, config: PushNotificationConfig): Promise<void>;
  getPushConfigs(taskId: string): Promise<PushNotificationConfig[]>;
  deletePushConfig(taskId: string, configId: string): Promise<void>;
  close(): Promise<void>;
}

/**
 * Where a hosted agent's conversations (the Eliza runtime's memories) live, apart from tasks: the runtime
 * needs only this. The memory, SQLite and Redis task stores implement it too, so one open store serves both;
 * every implementation passes tests/memory-store.contract.ts. Copies on save and on load, like TaskStore.
 * Whoever opened the store closes it.
 */
export interface MemoryRecordStore {
  /** Adding an id already stored is a no-op, so a retried add is safe. */
  addMemory(memory: MemoryRecord): Promise<void>;
  /** Oldest first (ties in insertion order); the newest `limit` when given. */
  listMemories(roomId: string, limit?: number): Promise<MemoryRecord[]>;
}

/**
 * Small records that expire, kept where the tasks are so every router on one store sees the same ones: what
 * lets a retried request find the turn it started (`Idempotency-Key`, A2A `messageId`) and a chat conversation
 * find its session (CONTRACT 14). A store holds them as its `records`. Keys and values are opaque strings; a record past its time is gone (a read
 * never returns it, a claim takes its key). Every implementation passes tests/store-records.contract.ts.
 */
export interface ExpiringRecordStore {
  /**
   * Stores `value` under `key` for `ttlMs` unless a record is there, atomically (of two claims of one key, one
   * wins, also across routers on one store). Resolves undefined when this call stored it, else the record's value.
   */
  claim(key: string, value: string, ttlMs: number): Promise<string | undefined>;
  read(key: string): Promise<string | undefined>;
  /** Stores (or replaces) the record for `ttlMs`; `value` undefined deletes it. */
  write(key: string, value: string | undefined, ttlMs: number): Promise<void>;
}
