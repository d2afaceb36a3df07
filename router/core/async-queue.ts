import { Fifo } from "./fifo.js";

/**
 * An unbounded single-consumer async queue: the bridge from callback-style producers (a WebSocket
 * connection, an SSE parser) to the engine's `for await`. Unbounded is deliberate: its consumer is the
 * engine, which drains at full speed; boundedness is enforced per client stream, not here.
 */
export class AsyncQueue<T> implements AsyncIterable<T> {
  #items = new Fifo<T>();
  #done = false;
  #error: Error | undefined;
  #wake: (() => void) | undefined;

  push(item: T): void {
    if (this.#done) return;
    this.#items.push(item);
    this.#wakeUp();
  }

  /** Ends the queue; pending items are still delivered, then iteration stops (or throws `error`). */
  end(error?: Error): void {
    if (this.#done) return;
    this.#done = true;
    this.#error = error;
    this.#wakeUp();
  }

  get ended(): boolean {
    return this.#done;
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<T> {
    for (;;) {
      if (this.#items.size > 0) {
        yield this.#items.shift()!;
        continue;
      }
      if (this.#done) {
        if (this.#error) throw this.#error;
        return;
      }
      await new Promise<void>((resolve) => (this.#wake = resolve));
    }
  }

  #wakeUp(): void {
    const wake = this.#wake;
    this.#wake = undefined;
    wake?.();
  }
}
