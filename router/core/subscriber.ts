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
   * Everything buffered, in order (one batch per fan-out, so a stream costs one wake-up and one socket write
   * per store commit), OVERFLOW or CLOSED; undefined when there is nothing yet: then wait with `onReady`, so
   * an idle stream waits on one callback.
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

  /** `wake` runs once, in a microtask after the next push, fall-back or close (replacing an earlier one). */
  onReady(wake: () => void): void {
    this.#wake = wake;
  }

  /** The reader went away: a waiting reader wakes, and `poll` answers CLOSED from now on. */
  close(): void {
    this.#closed = true;
    this.#buffer = undefined;
    this.#bytes = 0;
    this.#wakeUp();
  }

  #wakeUp(): void {
    const wake = this.#wake;
    this.#wake = undefined;
    // Never within the push: the fan-out pushes a whole commit first, so the reader wakes once and takes it
    // as one batch (and no reader runs inside the fan-out loop).
    if (wake) queueMicrotask(wake);
  }
}
