import { copyData } from "../core/data-copy.js";
import type { LoggedEvent, PushNotificationConfig, Task } from "../core/model.js";
import type { CommitBatch, ListTasksFilter, ListTasksQuery, MemoryRecord, MemoryRecordStore, TaskStore } from "../core/store.js";
import {
  fitting,
  checkCount,
  checkKey,
  checkListQuery,
  isAfterCursor,
  isUnfinished,
  matchesFilters,
  newestFirst,
  planAppends,
  pushConfigId,
  timeMs,
} from "./common.js";
import { MemoryRecords } from "./expiring-records.js";

/**
 * A TaskStore held in process memory: the default for tests and `--store memory`. Nothing survives the process.
 *
 * Everything is copied on save and on load (`copyData`: objects and arrays, sharing the immutable strings), so
 * callers may mutate what they pass in or get back. A commit clones and checks its whole batch before touching any map, so a batch that cannot be
 * cloned, or whose events would leave a gap in a log, leaves the store as it was. An event whose seq is already
 * in its log is skipped (see `continuesLog`): committing a batch twice stores it once.
 */
export class MemoryStore implements TaskStore, MemoryRecordStore {
  readonly kind = "memory" as const;
  #tasks = new Map<string, Task>();
  /** Per task, its log: seq n at index n-1. */
  #events = new Map<string, LoggedEvent[]>();
  #push = new Map<string, Map<string, PushNotificationConfig>>();
  /** Per room, its memories sorted by createdAt; equal times keep insertion order. */
  #rooms = new Map<string, MemoryRecord[]>();
  #memoryIds = new Set<string>();
  /** Expiring records (idempotency keys, chat sessions). */
  readonly records = new MemoryRecords();

  async commit(batch: CommitBatch): Promise<void> {
    const tasks = copyData(batch.tasks);
    const events = copyData(batch.events);
    for (const task of tasks) timeMs("updatedAt", task.updatedAt);
    // Each log holds seq 1..n at positions 0..n-1, so its length is its last seq.
    const batchTasks = new Set(tasks.map((t) => t.id));
    const appends = planAppends(
      events,
      (taskId) => this.#events.get(taskId)?.length ?? 0,
      (taskId) => batchTasks.has(taskId) || this.#tasks.has(taskId),
    );
    for (const task of tasks) this.#tasks.set(task.id, task);
    for (const event of appends) {
      let log = this.#events.get(event.taskId);
      if (!log) this.#events.set(event.taskId, (log = []));
      log.push(event);
    }
  }

  async getTask(id: string): Promise<Task | undefined> {
    const task = this.#tasks.get(id);
    return task && copyData(task);
  }

  async readEvents(taskId: string, afterSeq: number, limit: number, maxBytes?: number): Promise<LoggedEvent[]> {
    checkCount("afterSeq", afterSeq);
    checkCount("limit", limit);
    const log = this.#events.get(taskId) ?? [];
    // seq n sits at index n-1 (commit keeps logs gap-free), so the events after afterSeq start at index afterSeq.
    let page = log.slice(afterSeq, afterSeq + limit);
    if (maxBytes !== undefined)
      page = page.slice(
        0,
        fitting(
          page.map((e) => JSON.stringify(e).length),
          maxBytes,
        ),
      );
    return copyData(page);
  }

  async listTasks(query: ListTasksQuery): Promise<Task[]> {
    const cursor = checkListQuery(query);
    const hits = [...this.#tasks.values()].filter((t) => matchesFilters(t, query) && (cursor === undefined || isAfterCursor(t, cursor)));
    return copyData(hits.sort(newestFirst).slice(0, query.limit));
  }

  async countTasks(filter: ListTasksFilter): Promise<number> {
    let n = 0;
    for (const t of this.#tasks.values()) if (matchesFilters(t, filter)) n++;
    return n;
  }

  /** Oldest update first. */
  async listUnfinishedTasks(): Promise<Task[]> {
    const hits = [...this.#tasks.values()].filter(isUnfinished);
    return copyData(hits.sort((a, b) => newestFirst(b, a)));
  }

  async setPushConfig(taskId: string, config: PushNotificationConfig): Promise<void> {
    checkKey("taskId", taskId);
    let configs = this.#push.get(taskId);
    if (!configs) this.#push.set(taskId, (configs = new Map()));
    configs.set(pushConfigId(config), copyData(config));
  }

  /** Ordered by config id, as SQLite and Redis return them. */
  async getPushConfigs(taskId: string): Promise<PushNotificationConfig[]> {
    checkKey("taskId", taskId);
    const configs = [...(this.#push.get(taskId) ?? new Map<string, PushNotificationConfig>())];
    configs.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return copyData(configs.map(([, config]) => config));
  }

  async deletePushConfig(taskId: string, configId: string): Promise<void> {
    checkKey("taskId", taskId);
    checkKey("configId", configId);
    this.#push.get(taskId)?.delete(configId);
  }

  /** Adding an id already stored is a no-op, so a retried add is safe. */
  async addMemory(memory: MemoryRecord): Promise<void> {
    if (this.#memoryIds.has(memory.id)) return;
    const copy = copyData(memory);
    let room = this.#rooms.get(copy.roomId);
    if (!room) this.#rooms.set(copy.roomId, (room = []));
    // Usually appended at the end; an older record is slotted in after every record not newer than it.
    let at = room.length;
    while (at > 0 && room[at - 1].createdAt > copy.createdAt) at--;
    room.splice(at, 0, copy);
    this.#memoryIds.add(copy.id);
  }

  async listMemories(roomId: string, limit?: number): Promise<MemoryRecord[]> {
    if (limit !== undefined) checkCount("limit", limit);
    const room = this.#rooms.get(roomId) ?? [];
    return copyData(limit === undefined ? room : room.slice(Math.max(0, room.length - limit)));
  }

  async close(): Promise<void> {}
}
