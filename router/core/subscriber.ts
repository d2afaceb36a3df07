import { eventBytes } from "./event-bytes.js";
import type { StreamEvent } from "./model.js";

/** Signals that a subscriber fell too far behind and must re-read from the log. */
export const OVERFLOW = Symbol("overflow");
/** Signals that the reader went away. */
export const CLOSED = Symbol("closed");

/**
 * One live stream's bounded buffer between the fan-out and the socket. The fan-out never waits on it:
 * when the buffer would pass its bound the subscriber drops its buffer and reports OVERFLOW, and its reader
 * falls back to the durable log, so a slow client costs at most `maxBytes` (CONTRACT 12
 * `limits.streamBufferBytes`) and at most `capacity` events of memory, whatever the events' sizes, and
 * loses nothing. Bytes are what bound memory; the event count only guards against many tiny events.
 */
export class Subscriber {
  /** Absent while empty: an idle stream's subscriber holds no array. */
  #buffer: StreamEvent[] | undefined;
  #bytes = 0;
  #overflowed = false;
  #closed = false;
  #wake: (() => void) | undefined;
  readonly capacity: number;
  readonly maxBytes: number;

  constructor(capacity: number, maxBytes = Number.POSITIVE_INFINITY) {
    this.capacity = capacity;
    this.maxBytes = maxBytes;
  }

  get depth(): number {
    return this.#buffer?.length ?? 0;
  }

  /** Bytes held (the buffered events' JSON). */
  get bytes(): number {
    return this.#bytes;
  }

  push(event: StreamEvent): void {
    if (this.#overflowed || this.#closed) return;
    const size = eventBytes(event);
    if (this.depth >= this.capacity || this.#bytes + size > this.maxBytes) {
      // Even an empty buffer refuses an event larger than the bound: the log serves it, in a page of its own.
      this.#overflowed = true;
      this.#buffer = undefined;
      this.#bytes = 0;
    } else {
      (this.#buffer ??= []).push(event);
      this.#bytes += size;
    }
    this.#wakeUp();
  }

  /** Sends the reader back to the log (its turn moved on without this instance: the log tells the rest). */
  fallBack(): void {
    this.#overflowed = true;
    this.#buffer = undefined;
    this.#bytes = 0;
    this.#wakeUp();
  }

  /**
   * Everything buffered, in order, once there is something: one await per fan-out batch rather than per
   * event, so a stream costs one wake-up and one socket write per store commit however many events it held.
   */
  async take(signal?: AbortSignal): Promise<StreamEvent[] | typeof OVERFLOW | typeof CLOSED> {
    for (;;) {
      if (signal?.aborted) return CLOSED;
      const got = this.poll();
      if (got !== undefined) return got;
      if (!signal) {
        await this.ready();
        continue;
      }
      await new Promise<void>((resolve) => {
        const onAbort = () => resolve();
        signal.addEventListener("abort", onAbort, { once: true });
        void this.ready().then(() => {
          signal.removeEventListener("abort", onAbort);
          resolve();
        });
      });
    }
  }

  /**
   * What `take` would answer now, or undefined when there is nothing yet (then wait with `ready` or
   * `onReady`). The synchronous form, for the stream reader: an idle stream then waits on one callback.
   */
  poll(): StreamEvent[] | typeof OVERFLOW | typeof CLOSED | undefined {
    if (this.#closed) return CLOSED;
    if (this.#overflowed) return OVERFLOW;
    const events = this.#buffer;
    if (!events) return undefined;
    this.#buffer = undefined;
    this.#bytes = 0;
    return events;
  }

  /** Resolves at the next push, fall-back or close (one waiter: the stream's reader). */
  ready(): Promise<void> {
    return new Promise<void>((resolve) => this.onReady(resolve));
  }

  /**
   * `ready` by callback: `wake` runs once, in a microtask after the next push, fall-back or close (replacing
   * an earlier one).
   */
  onReady(wake: () => void): void {
    this.#wake = wake;
  }

  /** The reader went away: a waiting `take`/`ready` wakes, and `poll` answers CLOSED from now on. */
  close(): void {
    this.#closed = true;
    this.#buffer = undefined;
    this.#bytes = 0;
    this.#wakeUp();
  }

  /** The next event (one at a time; `take` is the batch form). */
  async next(signal?: AbortSignal): Promise<StreamEvent | typeof OVERFLOW | typeof CLOSED> {
    const got = await this.take(signal);
    if (typeof got === "symbol") return got;
    const [first, ...rest] = got;
    if (rest.length > 0) {
      // Put the rest back in front (nothing can have been pushed between take and here: same tick).
      this.#buffer = rest.concat(this.#buffer ?? []);
      for (const e of rest) this.#bytes += eventBytes(e);
    }
    return first!;
  }

  #wakeUp(): void {
    const wake = this.#wake;
    this.#wake = undefined;
    // Never within the push: the fan-out pushes a whole commit first, so the reader wakes once and takes it
    // as one batch (and no reader runs inside the fan-out loop).
    if (wake) queueMicrotask(wake);
  }
}
