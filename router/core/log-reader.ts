import type { Logger } from "pino";
import type { EngineCluster } from "./cluster.js";
import type { LiveTask } from "./engine-types.js";
import { TURN_END_STATES, type StreamEvent, type TaskStatus } from "./model.js";
import type { SharedLog } from "./shared-log.js";
import type { TaskStore } from "./store.js";
import { CLOSED, OVERFLOW, Subscriber } from "./subscriber.js";
import { isTurnEnd, unstoredFailure } from "./turn-rules.js";

/** What a LogReader reads from its engine. */
export interface LogReaderHost {
  store: TaskStore;
  /** Log pages for streams catching up, shared by streams that read the same events (see SharedLog). */
  pages: SharedLog;
  options: { logPageSize: number; subscriberCapacity: number; streamBufferBytes: number };
  log: Logger;
  /** The task's turn in progress on this instance, if any. */
  live(taskId: string): LiveTask | undefined;
  /** The failed status of a task failed for want of storage, until that failure is stored. */
  unstoredFailure(taskId: string): TaskStatus | undefined;
  cluster?: EngineCluster;
  /** A live stream fell behind and went back to reading the log (counted for metrics). */
  onFallback(): void;
}

/** A task's events for streams: first from the log, then live, back to the log when a stream falls behind. */
export class LogReader {
  #host: LogReaderHost;

  constructor(host: LogReaderHost) {
    this.#host = host;
  }

  /**
   * `events` in batches, for transports: a page of the log (at most logPageSize events and about
   * streamBufferBytes bytes), or what one live stream collected since it last took. A stream writes a
   * batch in one go: per-event awaits and socket writes were most of a fast relay's cost.
   */
  async *eventBatches(taskId: string, afterSeq: number, signal?: AbortSignal): AsyncGenerator<StreamEvent[]> {
    let cursor = afterSeq;
    const { store, pages, options, log } = this.#host;
    for (;;) {
      if (signal?.aborted) return;
      // Pages are bounded in bytes as well as in events, so catching up on large events holds no more than
      // a live stream may (CONTRACT 12).
      const page = await pages.read(taskId, cursor, options.logPageSize, this.#heldBytes());
      // A log must go cursor+1, cursor+2, ...: anything else (a store written by two routers) would repeat
      // or loop forever, so it ends the stream loudly instead.
      for (let i = 0; i < page.length; i++) {
        const event = page[i]!;
        if (event.seq !== (i === 0 ? cursor : page[i - 1]!.seq) + 1) {
          if (i > 0) yield page.slice(0, i);
          log.error({ task: taskId, after: i === 0 ? cursor : page[i - 1]!.seq, got: event.seq }, "task log is not contiguous; ending the stream");
          return;
        }
      }
      if (page.length > 0) {
        yield page;
        const last = page[page.length - 1]!;
        cursor = last.seq;
        if (isTurnEnd(last) && !(await this.#continuesAfter(taskId, last.seq))) return;
        // A page may be short because of its byte bound, not because the log ended: read on until empty.
        continue;
      }
      const live = this.#host.live(taskId);
      if (!live) {
        // The turn may have ended (and left the live tasks) while we read: its final event is in the log then.
        if ((await store.readEvents(taskId, cursor, 1)).length > 0) continue;
        // Failed for want of storage: the log stops short, the stream still ends with the failure.
        const failed = this.#host.unstoredFailure(taskId);
        if (failed) {
          const task = await store.getTask(taskId);
          if (task) yield [unstoredFailure(task, failed)];
          return;
        }
        // Or it runs on another instance: wait for that instance's next append, then read the log again.
        const elsewhere = this.#host.cluster && (await this.#elsewhere(taskId, cursor));
        if (elsewhere === "appended") continue;
        if (elsewhere === "running") {
          await this.#host.cluster!.waitForAppend(taskId, cursor, signal);
          continue;
        }
        return;
      }
      if (live.committedSeq !== cursor) continue;
      const sub = new Subscriber(options.subscriberCapacity, this.#heldBytes());
      live.subscribers.add(sub);
      try {
        for (;;) {
          const got = await sub.take(signal);
          if (got === CLOSED) return;
          if (got === OVERFLOW) {
            this.#host.onFallback();
            break;
          }
          // A batch ends at the turn's end, or at a failure that could not be logged (no seq).
          const end = got.findIndex((e) => e.seq === undefined || isTurnEnd(e));
          if (end >= 0) {
            yield end === got.length - 1 ? got : got.slice(0, end + 1);
            return;
          }
          yield got;
          cursor = got[got.length - 1]!.seq!;
        }
      } finally {
        live.subscribers.delete(sub);
      }
    }
  }

  /**
   * Cluster mode, for a task this instance does not run: "appended" when its log grew past `cursor` (since
   * the last read: the task and its events are stored together), "running" when its turn is open on another
   * instance, undefined when there is nothing to wait for.
   */
  async #elsewhere(taskId: string, cursor: number): Promise<"appended" | "running" | undefined> {
    const task = await this.#host.store.getTask(taskId);
    if (!task) return undefined;
    if (task.lastSeq > cursor) return "appended";
    return !TURN_END_STATES.has(task.status.state) && !this.#host.live(taskId) ? "running" : undefined;
  }

  /**
   * The bytes of events a stream may hold at once: half its budget, because while a stream writes an event
   * it holds it twice, parsed and rendered for its socket (CONTRACT 12 bounds the total).
   */
  #heldBytes(): number {
    return Math.max(1, Math.floor(this.#host.options.streamBufferBytes / 2));
  }

  /** Whether anything follows a turn-ending event: a later logged event, or a turn that has started since. */
  async #continuesAfter(taskId: string, seq: number): Promise<boolean> {
    const live = this.#host.live(taskId);
    if (live && live.turnFromSeq >= seq) return true;
    return (await this.#host.store.readEvents(taskId, seq, 1)).length > 0;
  }
}
