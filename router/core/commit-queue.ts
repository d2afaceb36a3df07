import type { Logger } from "pino";
import type { LoggedEvent, Task } from "./model.js";
import { eventBytes, stored } from "./event-bytes.js";
import type { CommitBatch, CommitResult, TaskStore } from "./store.js";

const RETRY_MIN_MS = 50;
const RETRY_MAX_MS = 2000;

/** Bytes of events above which a commit takes the writes of fewer tasks (at least one), the rest in the next. */
export const MAX_BATCH_BYTES = 8 * 1024 * 1024;

/** How long one task's writes are retried before the task is given up on, by default (`limits.commitRetryMs`). */
export const DEFAULT_COMMIT_RETRY_MS = 30_000;

/** One task's writes the queue gave up on: they could not be stored within the retry budget. */
export interface AbandonedWrites {
  taskId: string;
  /** The task's newest snapshot (which the store does not hold). */
  task: Task;
  /** The task's events that are not stored, in seq order (possibly none). */
  events: LoggedEvent[];
  /** The last store error. */
  error: unknown;
  attempts: number;
}

export interface CommitQueueOptions {
  /** Committed events, in order per task, once they are durable: the fan-out. */
  onCommitted: (events: LoggedEvent[]) => void;
  /** A task whose writes failed for `retryMs`: nothing more of it is queued, the caller fails it. */
  onAbandoned: (lost: AbandonedWrites) => void;
  log: Logger;
  /** How long a task's failing writes are retried (with capped backoff) before they are abandoned. */
  retryMs?: number;
  /**
   * Tasks a shared store refused to write because their turn lease was lost (cluster fencing): their events
   * are not durable, so they never reach `onCommitted`, and they are not retried (another instance owns them).
   */
  onFenced?: (taskIds: string[]) => void;
}

/** Writes not yet stored: task snapshots (the newest wins), events in order, and each task's oldest generation. */
class Writes {
  tasks = new Map<string, Task>();
  events: LoggedEvent[] = [];
  firstGen = new Map<string, number>();

  get empty(): boolean {
    return this.tasks.size === 0;
  }

  add(task: Task, event: LoggedEvent | undefined, gen: number): void {
    this.tasks.set(task.id, task);
    if (event) this.events.push(event);
    if (!this.firstGen.has(task.id)) this.firstGen.set(task.id, gen);
  }

  batch(): CommitBatch {
    return { tasks: [...this.tasks.values()], events: this.events };
  }

  /** Appends `later`'s writes after these (a task snapshot of `later` is newer, so it wins). */
  append(later: Writes): void {
    for (const [id, t] of later.tasks) this.tasks.set(id, t);
    for (const e of later.events) this.events.push(e);
    for (const [id, g] of later.firstGen) if (!this.firstGen.has(id)) this.firstGen.set(id, g);
  }

  /**
   * Removes the writes of the first tasks (in the order they were added) whose events hold up to `maxBytes`,
   * always at least one task, and returns them; the rest stay, in order.
   */
  takeFirst(maxBytes: number): Writes {
    const bytes = new Map<string, number>();
    for (const e of this.events) bytes.set(e.taskId, (bytes.get(e.taskId) ?? 0) + eventBytes(e));
    const out = new Writes();
    let taken = 0;
    for (const id of [...this.tasks.keys()]) {
      const size = bytes.get(id) ?? 0;
      if (out.tasks.size > 0 && taken + size > maxBytes) break;
      taken += size;
      out.append(this.take(id));
    }
    return out;
  }

  /** Removes one task's writes and returns them. */
  take(taskId: string): Writes {
    const out = new Writes();
    const task = this.tasks.get(taskId);
    if (!task) return out;
    out.tasks.set(taskId, task);
    out.firstGen.set(taskId, this.firstGen.get(taskId)!);
    out.events = this.events.filter((e) => e.taskId === taskId);
    this.tasks.delete(taskId);
    this.firstGen.delete(taskId);
    if (out.events.length > 0) this.events = this.events.filter((e) => e.taskId !== taskId);
    return out;
  }

  /** The writes split per task (each task's events keep their order). */
  split(): Array<[string, Writes]> {
    const parts = new Map<string, Writes>();
    for (const [id, task] of this.tasks) {
      const part = new Writes();
      part.tasks.set(id, task);
      part.firstGen.set(id, this.firstGen.get(id)!);
      parts.set(id, part);
    }
    for (const e of this.events) parts.get(e.taskId)!.events.push(e);
    return [...parts];
  }
}

/** A task whose writes failed: retried on its own, with backoff, apart from every other task's. */
interface Lane {
  taskId: string;
  /** What the next attempt writes. */
  writes: Writes;
  /** What was added while an attempt was running (written after `writes`). */
  next: Writes;
  since: number;
  attempts: number;
  delayMs: number;
  error: unknown;
  timer?: NodeJS.Timeout;
}

interface Waiter {
  /** Only this task's writes (else everyone's). */
  taskId?: string;
  gen: number;
  /** Some of the writes it waits for were abandoned. */
  lost: boolean;
  resolve: (stored: boolean) => void;
}

/**
 * Batches store writes: everything appended during one tick goes to the store in one `commit` (one
 * transaction; past MAX_BATCH_BYTES of events, the writes of whole tasks up to that much, the rest in the
 * next), and only then is handed to `onCommitted` for fan-out, so nobody is ever told of an event that is not
 * yet durable.
 *
 * A failed commit is isolated to the tasks it cannot store: the batch is split and written task by task, and
 * each task that still fails gets a lane of its own, retried with capped backoff (50 ms doubling to 2 s) while
 * every other task keeps committing one transaction per tick. A task that recovers within `retryMs` loses
 * nothing; one that does not is handed to `onAbandoned` with what could not be stored, and its waiters
 * learn it (`flushed` resolves false). An attempt in progress is never abandoned: a commit whose outcome is
 * unknown may still land, so the budget is checked only when an attempt fails.
 */
export class CommitQueue {
  #store: TaskStore;
  #opts: Required<CommitQueueOptions>;
  #pending = new Writes();
  #inFlight: Writes | undefined;
  #lanes = new Map<string, Lane>();
  #immediate: NodeJS.Immediate | undefined;
  #flushing = false;
  #addedGen = 0;
  #waiters: Waiter[] = [];
  #unstoredBytes = 0;

  constructor(store: TaskStore, options: CommitQueueOptions) {
    this.#store = store;
    this.#opts = { retryMs: DEFAULT_COMMIT_RETRY_MS, onFenced: () => {}, ...options };
  }

  /** Events appended but not yet committed (including those of tasks being retried). */
  get pending(): number {
    let n = this.#pending.events.length;
    for (const lane of this.#lanes.values()) n += lane.writes.events.length + lane.next.events.length;
    return n;
  }

  /**
   * Bytes of the events added and not yet stored (their JSON, serialized here once for the store and the
   * streams): what a turn waits on before reading more of its agent, so a fast agent's updates wait in its
   * socket rather than in the router's memory.
   */
  get unstoredBytes(): number {
    return this.#unstoredBytes;
  }

  /** Queues a task snapshot (always the live object: the newest state wins) and optionally an event. */
  add(task: Task, event?: LoggedEvent): void {
    const gen = ++this.#addedGen;
    if (event) this.#unstoredBytes += eventBytes(event);
    const lane = this.#lanes.get(task.id);
    // A task being retried keeps its writes in order behind the failed ones, off the shared batch.
    if (lane) lane.next.add(task, event, gen);
    else {
      this.#pending.add(task, event, gen);
      this.#schedule();
    }
  }

  /**
   * Resolves once everything queued so far (for `taskId`, or for every task) is committed, true, or given
   * up on, false (some of it was abandoned: see `onAbandoned`).
   */
  flushed(taskId?: string): Promise<boolean> {
    const gen = this.#addedGen;
    if (!this.#outstanding(gen, taskId)) return Promise.resolve(true);
    return new Promise((resolve) => this.#waiters.push({ ...(taskId !== undefined && { taskId }), gen, lost: false, resolve }));
  }

  #schedule(): void {
    if (this.#immediate || this.#flushing) return;
    this.#immediate = setImmediate(() => {
      this.#immediate = undefined;
      void this.#flush();
    });
  }

  async #flush(): Promise<void> {
    if (this.#pending.empty) return;
    this.#flushing = true;
    let writes = this.#pending;
    // Large writes of several tasks go a few tasks at a time: a store holds several copies of what one commit
    // writes while it writes it (SQLite: the rows' bytes, its bound copies, the records it builds), so one
    // transaction of six 50 MB tasks held all of that at once.
    if (this.#unstoredBytes > MAX_BATCH_BYTES && writes.tasks.size > 1) writes = writes.takeFirst(MAX_BATCH_BYTES);
    else this.#pending = new Writes();
    this.#inFlight = writes;
    try {
      this.#committed(writes, await this.#store.commit(writes.batch()));
    } catch (err) {
      await this.#split(writes, err);
    }
    this.#inFlight = undefined;
    this.#flushing = false;
    this.#release();
    if (!this.#pending.empty) this.#schedule();
  }

  /** After a failed batch: each task's writes on their own (at once), so one bad task holds nobody else up. */
  async #split(writes: Writes, err: unknown): Promise<void> {
    const parts = writes.split();
    if (parts.length === 1) return this.#openLane(parts[0]![0], parts[0]![1], err);
    this.#opts.log.warn({ err, tasks: parts.length }, "store commit failed; writing the batch task by task");
    await Promise.all(
      parts.map(async ([taskId, part]) => {
        try {
          this.#committed(part, await this.#store.commit(part.batch()));
        } catch (partErr) {
          this.#openLane(taskId, part, partErr);
        }
      }),
    );
  }

  #openLane(taskId: string, writes: Writes, error: unknown): void {
    // What the task added since the batch was taken goes behind it, in order.
    const lane: Lane = { taskId, writes, next: this.#pending.take(taskId), since: Date.now(), attempts: 1, delayMs: RETRY_MIN_MS, error };
    this.#lanes.set(taskId, lane);
    this.#opts.log.warn({ err: error, task: taskId, events: writes.events.length }, "store commit failed for a task; retrying it on its own");
    this.#arm(lane);
  }

  #arm(lane: Lane): void {
    lane.timer = setTimeout(() => void this.#retry(lane), lane.delayMs);
  }

  async #retry(lane: Lane): Promise<void> {
    let result: CommitResult | void;
    try {
      result = await this.#store.commit(lane.writes.batch());
    } catch (err) {
      lane.attempts++;
      lane.error = err;
      lane.writes.append(lane.next);
      lane.next = new Writes();
      if (Date.now() - lane.since >= this.#opts.retryMs) return this.#abandon(lane);
      lane.delayMs = Math.min(lane.delayMs * 2, RETRY_MAX_MS);
      this.#arm(lane);
      return;
    }
    this.#lanes.delete(lane.taskId);
    this.#opts.log.info({ task: lane.taskId, attempts: lane.attempts, afterMs: Date.now() - lane.since }, "store commit for a task succeeded after retrying");
    this.#committed(lane.writes, result);
    // Back on the shared batch: nothing of this task is there (its adds came to the lane meanwhile).
    this.#pending.append(lane.next);
    this.#release();
    if (!this.#pending.empty) this.#schedule();
  }

  #abandon(lane: Lane): void {
    this.#lanes.delete(lane.taskId);
    const writes = lane.writes;
    this.#settled(writes.events);
    const firstGen = writes.firstGen.get(lane.taskId)!;
    for (const w of this.#waiters) if ((w.taskId === undefined || w.taskId === lane.taskId) && w.gen >= firstGen) w.lost = true;
    this.#release();
    this.#opts.onAbandoned({
      taskId: lane.taskId,
      task: writes.tasks.get(lane.taskId)!,
      events: writes.events,
      error: lane.error,
      attempts: lane.attempts,
    });
  }

  #committed(writes: Writes, result: CommitResult | void): void {
    this.#settled(writes.events);
    const fenced = result?.fenced ?? [];
    let durable = writes.events;
    if (fenced.length > 0) {
      const refused = new Set(fenced);
      durable = durable.filter((e) => !refused.has(e.taskId));
      this.#opts.onFenced(fenced);
    }
    if (durable.length > 0) this.#opts.onCommitted(durable);
  }

  /** Events out of the queue's hands, stored or given up on. */
  #settled(events: LoggedEvent[]): void {
    for (const e of events) {
      this.#unstoredBytes -= eventBytes(e);
      stored(e);
    }
  }

  /** Whether some write added at or before `gen` (of `taskId`, or of any task) is not settled yet. */
  #outstanding(gen: number, taskId?: string): boolean {
    const holders: Writes[] = [this.#pending];
    if (this.#inFlight) holders.push(this.#inFlight);
    for (const lane of this.#lanes.values()) holders.push(lane.writes, lane.next);
    for (const h of holders) {
      if (taskId !== undefined) {
        const first = h.firstGen.get(taskId);
        if (first !== undefined && first <= gen) return true;
      } else {
        for (const first of h.firstGen.values()) if (first <= gen) return true;
      }
    }
    return false;
  }

  #release(): void {
    if (this.#waiters.length === 0) return;
    const still: Waiter[] = [];
    for (const w of this.#waiters) {
      if (this.#outstanding(w.gen, w.taskId)) still.push(w);
      else w.resolve(!w.lost);
    }
    this.#waiters = still;
  }
}
