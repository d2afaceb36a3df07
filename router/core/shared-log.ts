import { eventBytes } from "./event-bytes.js";
import type { LoggedEvent } from "./model.js";
import type { TaskStore } from "./store.js";

/** A page of one task's log as the store answered it: events `first`..`last`, kept weakly. */
interface KeptPage {
  first: number;
  last: number;
  events: WeakRef<LoggedEvent[]>;
}

/** A reader that read a task's log this recently is taken to be still catching up on it. */
const RECENT_READER_MS = 1000;

/**
 * Reads a task's log for streams that are catching up, in pages bounded in events and in bytes (CONTRACT 12:
 * a stream reads the log by bytes). Streams that fell behind together (a fan-out to many slow readers) read
 * the same events at cursors of their own: while more than one reader is catching up on a task, a page read
 * from the store is kept, weakly, and handed on, from wherever a reader's cursor falls in it, to every reader
 * that asks for its events while anyone still holds the page, so each event is parsed, rendered and encoded
 * once rather than once per reader (the render caches are on the event object). A lone reader's pages are not
 * kept: keeping what it read, even weakly, cost a lone stream catching up about a quarter of its speed (a WeakRef
 * and a finalizer per event, and objects kept alive past the young collections that would otherwise free them);
 * pages rather than events, for the same reason (docs/benchmarks.md, tenth pass). The log is append-only, so a kept event
 * is the logged one; callers must not mutate what they get.
 */
export class SharedLog {
  #store: TaskStore;
  /** Per task, the pages read and not yet collected, ordered by their first seq. */
  #kept = new Map<string, KeptPage[]>();
  #gone = new FinalizationRegistry<{ taskId: string; page: KeptPage }>(({ taskId, page }) => {
    const pages = this.#kept.get(taskId);
    const at = pages ? pages.indexOf(page) : -1;
    if (at < 0) return;
    pages!.splice(at, 1);
    if (pages!.length === 0) this.#kept.delete(taskId);
  });

  /** Per task, its recent readers and when each last read. */
  #readers = new Map<string, Map<number, number>>();
  #forgetTimer: NodeJS.Timeout | undefined;

  constructor(store: TaskStore) {
    this.#store = store;
  }

  /**
   * Events after `cursor`, at most `limit` and `maxBytes` (always at least one when there is one). `reader`
   * names the stream reading (any number of its own), so the log knows when several catch up at once.
   */
  async read(taskId: string, cursor: number, limit: number, maxBytes: number, reader: number): Promise<LoggedEvent[]> {
    const others = this.#noteReader(taskId, reader);
    const kept = this.#fromKept(taskId, cursor, limit, maxBytes);
    if (kept.length > 0) return kept;
    const read = await this.#store.readEvents(taskId, cursor, limit, maxBytes);
    if (read.length > 0 && others) this.#keep(taskId, read);
    return read;
  }

  /** Notes that `reader` reads the task's log now; whether others did lately. */
  #noteReader(taskId: string, reader: number): boolean {
    const now = Date.now();
    let readers = this.#readers.get(taskId);
    if (!readers) this.#readers.set(taskId, (readers = new Map()));
    readers.set(reader, now);
    this.#forgetTimer ??= setTimeout(() => this.#forgetReaders(), RECENT_READER_MS).unref();
    if (readers.size === 1) return false;
    for (const [other, at] of readers) if (other !== reader && now - at <= RECENT_READER_MS) return true;
    return false;
  }

  /** Forgets readers that have not read lately, every so often while there are any. */
  #forgetReaders(): void {
    const now = Date.now();
    for (const [taskId, readers] of this.#readers) {
      for (const [reader, at] of readers) if (now - at > RECENT_READER_MS) readers.delete(reader);
      if (readers.size === 0) this.#readers.delete(taskId);
    }
    this.#forgetTimer = this.#readers.size > 0 ? setTimeout(() => this.#forgetReaders(), RECENT_READER_MS).unref() : undefined;
  }

  /** What kept pages hold from `cursor + 1` on, as far as they hold it without a gap. */
  #fromKept(taskId: string, cursor: number, limit: number, maxBytes: number): LoggedEvent[] {
    const page: LoggedEvent[] = [];
    const pages = this.#kept.get(taskId);
    if (!pages) return page;
    let bytes = 0;
    let seq = cursor + 1;
    for (let events = holding(pages, seq); events && page.length < limit; events = holding(pages, seq)) {
      for (let i = seq - events[0]!.seq; i < events.length && page.length < limit; i++, seq++) {
        const event = events[i]!;
        // A page the store answered out of order is not looked into further (the stream ends such a log loudly).
        if (event.seq !== seq) return page;
        const size = eventBytes(event);
        if (page.length > 0 && bytes + size > maxBytes) return page;
        page.push(event);
        bytes += size;
      }
    }
    return page;
  }

  #keep(taskId: string, events: LoggedEvent[]): void {
    const page: KeptPage = { first: events[0]!.seq, last: events[events.length - 1]!.seq, events: new WeakRef(events) };
    let pages = this.#kept.get(taskId);
    if (!pages) this.#kept.set(taskId, (pages = []));
    pages.splice(firstAfter(pages, page.first), 0, page);
    this.#gone.register(events, { taskId, page });
  }
}

/** Index of the first page that starts after `seq` (pages are ordered by their first seq). */
function firstAfter(pages: KeptPage[], seq: number): number {
  let lo = 0;
  let hi = pages.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (pages[mid]!.first <= seq) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** The events of a page still alive that holds `seq`, if any. */
function holding(pages: KeptPage[], seq: number): LoggedEvent[] | undefined {
  for (let i = firstAfter(pages, seq) - 1; i >= 0; i--) {
    const page = pages[i]!;
    if (page.last < seq) continue;
    const events = page.events.deref();
    if (events) return events;
  }
  return undefined;
}
