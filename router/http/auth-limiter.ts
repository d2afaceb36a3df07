/** The sliding window failed authentications are counted over. */
const WINDOW_MS = 60_000;

export interface AuthFailureLimiterOptions {
  /** Failures per address within a minute; the next attempt gets 429. */
  perMinute: number;
  /** Addresses tracked at once; the longest-quiet are forgotten first, so spoofed floods cannot grow memory. */
  maxAddresses?: number;
  /** Clock (tests). */
  now?: () => number;
}

/**
 * Failed authentications per client address over a sliding minute. Pure bookkeeping (no timers, no I/O):
 * each address keeps at most `perMinute` failure times, and the map is bounded, so memory stays small
 * whatever a client sends. Shared by every place that checks a credential (HTTP keys, and the hub's upgrade).
 */
export class AuthFailureLimiter {
  #perMinute: number;
  #max: number;
  #now: () => number;
  /** address -> failure times, oldest first (insertion order of the map: least recently failed first). */
  #failures = new Map<string, number[]>();

  constructor(options: AuthFailureLimiterOptions) {
    this.#perMinute = options.perMinute;
    this.#max = options.maxAddresses ?? 100_000;
    this.#now = options.now ?? Date.now;
  }

  /** Seconds until `address` may try again, or 0 when it may try now. */
  retryAfterSeconds(address: string): number {
    const times = this.#recent(address);
    if (times.length < this.#perMinute) return 0;
    return Math.max(1, Math.ceil((times[0]! + WINDOW_MS - this.#now()) / 1000));
  }

  /** Records a failed authentication from `address`. */
  fail(address: string): void {
    const times = this.#recent(address);
    times.push(this.#now());
    if (times.length > this.#perMinute) times.shift();
    // Re-insert: the map's order is then "least recently failed first", which is what eviction wants.
    this.#failures.delete(address);
    this.#failures.set(address, times);
    while (this.#failures.size > this.#max) this.#failures.delete(this.#failures.keys().next().value!);
  }

  /** Addresses currently tracked (tests, metrics). */
  get size(): number {
    return this.#failures.size;
  }

  #recent(address: string): number[] {
    const times = this.#failures.get(address);
    if (!times) return [];
    const since = this.#now() - WINDOW_MS;
    while (times.length && times[0]! <= since) times.shift();
    if (times.length === 0) this.#failures.delete(address);
    return times;
  }
}
