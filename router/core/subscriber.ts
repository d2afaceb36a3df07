import type { StreamEvent } from "./model.js";

/** Signals that a subscriber fell too far behind and must re-read from the log. */
export const OVERFLOW = Symbol("overflow");
/** Signals that the reader went away. */
export const CLOSED = Symbol("closed");

/**
 * One live stream's bounded buffer between the fan-out and the socket. The fan-out never waits on it:
 * when the buffer is full the subscriber drops its buffer and reports OVERFLOW, and its reader falls back
 * to the durable log, so a slow client costs at most `capacity` events of memory and loses nothing.
 */
export class Subscriber {
  #buffer: StreamEvent[] = [];
  #head = 0;
  #overflowed = false;
  #wake: (() => void) | undefined;
  readonly capacity: number;

  constructor(capacity: number) {
    this.capacity = capacity;
  }

  get depth(): number {
    return this.#buffer.length - this.#head;
  }

  push(event: StreamEvent): void {
    if (this.#overflowed) return;
    if (this.depth >= this.capacity) {
      this.#overflowed = true;
      this.#buffer = [];
      this.#head = 0;
    } else {
      this.#buffer.push(event);
    }
    this.#wakeUp();
  }

  /** Sends the reader back to the log (its turn moved on without this instance: the log tells the rest). */
  fallBack(): void {
    this.#overflowed = true;
    this.#buffer = [];
    this.#head = 0;
    this.#wakeUp();
  }

  async next(signal?: AbortSignal): Promise<StreamEvent | typeof OVERFLOW | typeof CLOSED> {
    for (;;) {
      if (signal?.aborted) return CLOSED;
      if (this.#overflowed) return OVERFLOW;
      if (this.#head < this.#buffer.length) {
        const event = this.#buffer[this.#head++]!;
        if (this.#head === this.#buffer.length) {
          this.#buffer = [];
          this.#head = 0;
        }
        return event;
      }
      await new Promise<void>((resolve) => {
        const onAbort = () => resolve();
        signal?.addEventListener("abort", onAbort, { once: true });
        this.#wake = () => {
          signal?.removeEventListener("abort", onAbort);
          resolve();
        };
      });
      this.#wake = undefined;
    }
  }

  #wakeUp(): void {
    const wake = this.#wake;
    this.#wake = undefined;
    wake?.();
  }
}
