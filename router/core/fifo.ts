/**
 * A first-in first-out array that lets go of what it hands out: a taken slot is cleared at once (until the
 * array is compacted it would keep its item alive, and a thousand queued 64 KB events is 64 MB), and the
 * array is compacted once most of it is taken.
 */
export class Fifo<T> {
  #items: Array<T | undefined> = [];
  #head = 0;

  get size(): number {
    return this.#items.length - this.#head;
  }

  push(item: T): void {
    this.#items.push(item);
  }

  /** The oldest item, removed; undefined when empty. */
  shift(): T | undefined {
    if (this.#head >= this.#items.length) return undefined;
    const item = this.#items[this.#head];
    this.#items[this.#head++] = undefined;
    if (this.#head > 1024 && this.#head * 2 > this.#items.length) {
      this.#items = this.#items.slice(this.#head);
      this.#head = 0;
    }
    return item;
  }

  /** Everything left, oldest first; the queue is empty after. */
  drain(): T[] {
    const rest = this.#items.slice(this.#head) as T[];
    this.#items = [];
    this.#head = 0;
    return rest;
  }
}
