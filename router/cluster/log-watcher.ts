import type { Redis } from "ioredis";

/** How long a channel stays subscribed after its last waiter left (a stream waits again at once). */
const LINGER_MS = 5000;

interface Channel {
  refs: number;
  waiters: Set<(seq: number) => void>;
  subscribed: Promise<unknown>;
  linger?: NodeJS.Timeout;
}

/**
 * Wakes streams of this instance when another instance appends to a task's log: one Redis connection in
 * subscriber mode per instance, multiplexing the log channels of exactly the tasks its streams watch (the
 * store's commit script publishes each append's last seq there). A notification is a hint, the log stays
 * the truth: a waiter re-reads the log after subscribing (an append just before is not missed) and wakes
 * after `pollMs` in any case (a notification lost in a reconnect costs at most that).
 */
export class LogWatcher {
  #sub: Redis;
  #channels = new Map<string, Channel>();
  #pollMs: number;

  constructor(sub: Redis, pollMs: number) {
    this.#sub = sub;
    this.#pollMs = pollMs;
  }

  /** Feeds one message of the subscriber connection (the cluster routes its log channels here). */
  deliver(channel: string, message: string): void {
    const entry = this.#channels.get(channel);
    if (!entry) return;
    const seq = Number(message);
    for (const w of entry.waiters) w(seq);
  }

  /**
   * Resolves once `channel` announces a seq above `afterSeq`, `hasMore()` finds one already logged, `pollMs`
   * passed, or `signal` aborted.
   */
  async wait(channel: string, afterSeq: number, hasMore: () => Promise<boolean>, signal?: AbortSignal): Promise<void> {
    const entry = this.#acquire(channel);
    let wake!: () => void;
    const woken = new Promise<void>((resolve) => (wake = resolve));
    const waiter = (seq: number) => {
      if (seq > afterSeq) wake();
    };
    const timer = setTimeout(wake, this.#pollMs);
    signal?.addEventListener("abort", wake, { once: true });
    entry.waiters.add(waiter);
    try {
      await entry.subscribed;
      if (signal?.aborted || (await hasMore())) return;
      await woken;
    } finally {
      entry.waiters.delete(waiter);
      clearTimeout(timer);
      signal?.removeEventListener("abort", wake);
      this.#release(channel, entry);
    }
  }

  /** Subscribed channels, for metrics and tests. */
  get size(): number {
    return this.#channels.size;
  }

  #acquire(channel: string): Channel {
    let entry = this.#channels.get(channel);
    if (!entry) {
      // A failed subscribe leaves the waiter to its poll timer rather than failing the stream.
      entry = { refs: 0, waiters: new Set(), subscribed: this.#sub.subscribe(channel).catch(() => undefined) };
      this.#channels.set(channel, entry);
    }
    entry.refs++;
    clearTimeout(entry.linger);
    return entry;
  }

  #release(channel: string, entry: Channel): void {
    if (--entry.refs > 0) return;
    entry.linger = setTimeout(() => {
      if (entry.refs > 0 || this.#channels.get(channel) !== entry) return;
      this.#channels.delete(channel);
      void this.#sub.unsubscribe(channel).catch(() => undefined);
    }, LINGER_MS);
    entry.linger.unref();
  }

  /** Drops every subscription timer (the connection is closed by its owner). */
  close(): void {
    for (const entry of this.#channels.values()) clearTimeout(entry.linger);
    this.#channels.clear();
  }
}
