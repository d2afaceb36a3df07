import type { Logger } from "pino";
import type { LoggedEvent, Task } from "./model.js";
import type { CommitResult, TaskStore } from "./store.js";

const RETRY_MIN_MS = 50;
const RETRY_MAX_MS = 2000;

/**
 * Batches store writes: everything appended during one tick goes to the store in one `commit` (one
 * transaction), and only then is handed to `onCommitted` for fan-out, so nobody is ever told of an event
 * that is not yet durable. A failing store is retried with capped backoff; nothing is dropped.
 */
export class CommitQueue {
  #store: TaskStore;
  #onCommitted: (events: LoggedEvent[]) => void;
  #onFenced: (taskIds: string[]) => void;
  #log: Logger;
  #tasks = new Map<string, Task>();
  #events: LoggedEvent[] = [];
  #scheduled = false;
  #flushing = false;
  /** Each add bumps the generation; a waiter is released once a commit covered its generation. */
  #addedGen = 0;
  #committedGen = 0;
  #waiters: Array<{ gen: number; resolve: () => void }> = [];
  #retryMs = RETRY_MIN_MS;

  /**
   * `onFenced` hears of tasks a shared store refused to write (their turn lease was lost): their events are
   * not durable, so they are never handed to `onCommitted`.
   */
  constructor(store: TaskStore, onCommitted: (events: LoggedEvent[]) => void, log: Logger, onFenced: (taskIds: string[]) => void = () => {}) {
    this.#store = store;
    this.#onCommitted = onCommitted;
    this.#onFenced = onFenced;
    this.#log = log;
  }

  /** Events appended but not yet committed. */
  get pending(): number {
    return this.#events.length;
  }

  /** Queues a task snapshot (always the live object: the newest state wins) and optionally an event. */
  add(task: Task, event?: LoggedEvent): void {
    this.#tasks.set(task.id, task);
    if (event) this.#events.push(event);
    this.#addedGen++;
    this.#schedule(0);
  }

  /** Resolves when everything queued so far is committed. */
  flushed(): Promise<void> {
    const gen = this.#addedGen;
    if (gen <= this.#committedGen) return Promise.resolve();
    return new Promise((resolve) => this.#waiters.push({ gen, resolve }));
  }

  #schedule(delayMs: number): void {
    if (this.#scheduled || this.#flushing) return;
    this.#scheduled = true;
    if (delayMs === 0) setImmediate(() => void this.#flush());
    else setTimeout(() => void this.#flush(), delayMs);
  }

  async #flush(): Promise<void> {
    this.#scheduled = false;
    this.#flushing = true;
    const gen = this.#addedGen;
    const tasks = [...this.#tasks.values()];
    const events = this.#events;
    this.#tasks = new Map();
    this.#events = [];
    let failed = false;
    let result: CommitResult | void = undefined;
    try {
      result = await this.#store.commit({ tasks, events });
      this.#retryMs = RETRY_MIN_MS;
      this.#committedGen = gen;
    } catch (err) {
      failed = true;
      this.#log.error({ err, events: events.length }, "store commit failed; retrying");
      // Put the batch back in front of anything newer so order is kept.
      for (const t of tasks) if (!this.#tasks.has(t.id)) this.#tasks.set(t.id, t);
      this.#events = events.concat(this.#events);
    }
    this.#flushing = false;
    if (!failed) {
      const fenced = result?.fenced ?? [];
      let durable = events;
      if (fenced.length > 0) {
        const refused = new Set(fenced);
        durable = events.filter((e) => !refused.has(e.taskId));
        this.#onFenced(fenced);
      }
      if (durable.length > 0) this.#onCommitted(durable);
      this.#releaseWaiters();
    }
    if (this.#tasks.size > 0) {
      this.#schedule(failed ? this.#retryMs : 0);
      if (failed) this.#retryMs = Math.min(this.#retryMs * 2, RETRY_MAX_MS);
    }
  }

  #releaseWaiters(): void {
    if (this.#waiters.length === 0) return;
    const still: Array<{ gen: number; resolve: () => void }> = [];
    for (const w of this.#waiters) {
      if (w.gen <= this.#committedGen) w.resolve();
      else still.push(w);
    }
    this.#waiters = still;
  }
}
