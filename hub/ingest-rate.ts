/**
 * What one agent connection may send the hub per second: a token bucket. A connection has one for each limit set:
 * `limits.hubBytesPerSecond`, drawn on always (a second's worth may come at once), and
 * `limits.hubSharedBytesPerSecond`, drawn on only while another agent is sending too (a tenth of a second's worth). A frame is always
 * taken whole, however large; the bytes past the allowance are a debt, and the socket is not read until it is
 * paid back. Bounding one agent's share of the router's single event loop keeps a flooding agent from slowing
 * every other agent's streams (docs/benchmarks.md, tenth and twelfth passes).
 */
export class IngestRate {
  readonly #perSecond: number;
  readonly #burst: number;
  #allowance: number;
  #at: number;

  /** `burstSeconds`: how many seconds' worth the bucket holds, and so may be sent at once after a rest. */
  constructor(bytesPerSecond: number, burstSeconds = 1) {
    this.#perSecond = bytesPerSecond;
    this.#burst = bytesPerSecond * burstSeconds;
    this.#allowance = this.#burst;
    this.#at = performance.now();
  }

  /** Takes a frame of `bytes` at `now` (performance.now()); how many milliseconds the socket should then rest (0: none). */
  take(bytes: number, now = performance.now()): number {
    this.#allowance = Math.min(this.#burst, this.#allowance + ((now - this.#at) * this.#perSecond) / 1000);
    this.#at = now;
    this.#allowance -= bytes;
    return this.#allowance >= 0 ? 0 : Math.ceil((-this.#allowance * 1000) / this.#perSecond);
  }
}

/** Another agent connection that sent within this long shares the hub (`limits.hubSharedBytesPerSecond`). */
export const SHARING_WINDOW_MS = 1000;

/**
 * Which agent connections are sending: whether, when one sends a frame, another has sent one within
 * SHARING_WINDOW_MS. Only the two latest distinct senders are kept: the latest sender other than a given one is
 * always one of them. O(1) a frame, nothing kept per connection.
 */
export class Senders {
  #latest: string | undefined;
  #latestAt = -Infinity;
  /** The latest sender other than `#latest`, and when it last sent. */
  #before: string | undefined;
  #beforeAt = -Infinity;

  /** Notes a frame from connection `id` at `now`; whether another connection sent within the window. */
  sent(id: string, now: number): boolean {
    let otherAt: number;
    if (this.#latest === id) otherAt = this.#beforeAt;
    else {
      otherAt = this.#latestAt;
      this.#before = this.#latest;
      this.#beforeAt = this.#latestAt;
      this.#latest = id;
    }
    this.#latestAt = now;
    return now - otherAt <= SHARING_WINDOW_MS;
  }

  /**
   * Connection `id` is gone: it no longer shares the hub. A third sender, if any, is not known again until it
   * sends its next frame (the hub may count as unshared until then): two entries are all this keeps.
   */
  forget(id: string): void {
    if (this.#latest === id) {
      this.#latest = this.#before;
      this.#latestAt = this.#beforeAt;
    } else if (this.#before !== id) return;
    this.#before = undefined;
    this.#beforeAt = -Infinity;
  }
}
