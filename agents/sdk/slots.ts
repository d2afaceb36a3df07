/**
 * The agent's `concurrency` bound: how many handlers run at once. A slot is taken before a turn runs and
 * given back when it ends, and also while a handler waits in `ctx.ask` (a task waiting for its client holds
 * no slot: many questions asked at once never keep the other tasks waiting).
 */
export class Slots {
  #free: number;
  #waiting: Array<() => void> = [];

  constructor(size: number) {
    this.#free = size;
  }

  /** Resolves true once a slot is held, or false (holding none) when `signal` aborts first. */
  acquire(signal: AbortSignal): Promise<boolean> {
    if (signal.aborted) return Promise.resolve(false);
    if (this.#free > 0) {
      this.#free--;
      return Promise.resolve(true);
    }
    return new Promise((resolve) => {
      const granted = () => {
        signal.removeEventListener("abort", aborted);
        resolve(true);
      };
      const aborted = () => {
        this.#waiting.splice(this.#waiting.indexOf(granted), 1);
        resolve(false);
      };
      this.#waiting.push(granted);
      signal.addEventListener("abort", aborted, { once: true });
    });
  }

  /** Gives a slot back: to the longest waiting turn, if any. */
  release(): void {
    const next = this.#waiting.shift();
    if (next) next();
    else this.#free++;
  }
}
