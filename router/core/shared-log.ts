import { eventBytes } from "./event-bytes.js";
import type { LoggedEvent } from "./model.js";
import type { TaskStore } from "./store.js";

/**
 * Reads a task's log for streams that are catching up, in pages bounded in events and in bytes (CONTRACT 12:
 * a stream reads the log by bytes). Streams that fell behind together (a fan-out to many slow readers) read
 * the same events at cursors of their own: an event read from the store is kept, weakly, by task and seq, and
 * handed to every stream that asks for it while any still holds it, so it is parsed, rendered and encoded
 * once rather than once per stream (the render caches are keyed by the event object). The log is
 * append-only, so a kept event is the logged one; callers must not mutate what they get.
 */
export class SharedLog {
  #store: TaskStore;
  #kept = new Map<string, Map<number, WeakRef<LoggedEvent>>>();
  #gone = new FinalizationRegistry<{ taskId: string; seq: number; ref: WeakRef<LoggedEvent> }>(({ taskId, seq, ref }) => {
    const map = this.#kept.get(taskId);
    if (map?.get(seq) !== ref) return;
    map.delete(seq);
    if (map.size === 0) this.#kept.delete(taskId);
  });

  constructor(store: TaskStore) {
    this.#store = store;
  }

  /** Events after `cursor`, at most `limit` and `maxBytes` (always at least one when there is one). */
  async read(taskId: string, cursor: number, limit: number, maxBytes: number): Promise<LoggedEvent[]> {
    const kept = this.#kept.get(taskId);
    const page: LoggedEvent[] = [];
    let bytes = 0;
    for (let seq = cursor + 1; kept && page.length < limit; seq++) {
      const event = kept.get(seq)?.deref();
      if (!event) break;
      const size = eventBytes(event);
      if (page.length > 0 && bytes + size > maxBytes) break;
      page.push(event);
      bytes += size;
    }
    if (page.length > 0) return page;
    const read = await this.#store.readEvents(taskId, cursor, limit, maxBytes);
    if (read.length > 0) {
      let map = this.#kept.get(taskId);
      if (!map) this.#kept.set(taskId, (map = new Map()));
      for (const event of read) {
        const ref = new WeakRef(event);
        map.set(event.seq, ref);
        this.#gone.register(event, { taskId, seq: event.seq, ref });
      }
    }
    return read;
  }
}
