import PQueue from "p-queue";

/**
 * The agent's `concurrency` bound: how many handlers run at once. A slot is taken before a turn runs and
 * given back when it ends, and also while a handler waits in `ctx.ask` (a task waiting for its client holds
 * no slot: many questions asked at once never keep the other tasks waiting). Each held slot is a p-queue job
 * that stays pending until the slot is given back, so p-queue keeps the count and the FIFO order of waiters.
 */
export class Slots {
  #queue: PQueue;
  /** Ends one held slot's job each; any holder may end any of them (the slots are alike). */
  #held: Array<() => void> = [];

  constructor(size: number) {
    this.#queue = new PQueue({ concurrency: size });
  }

  /** Resolves true once a slot is held, or false (holding none) when `signal` aborts first. */
  acquire(signal: AbortSignal): Promise<boolean> {
    if (signal.aborted) return Promise.resolve(false);
    return new Promise((resolve) => {
      const aborted = () => resolve(false);
      signal.addEventListener("abort", aborted, { once: true });
      // No signal for p-queue: it would end a started job on abort and free a slot its holder still uses.
      void this.#queue.add(async () => {
        signal.removeEventListener("abort", aborted);
        // Aborted while queued: the waiter was told already; the slot passes straight on.
        if (signal.aborted) return;
        await new Promise<void>((done) => {
          this.#held.push(done);
          resolve(true);
        });
      });
    });
  }

  /** Gives a slot back: to the longest waiting turn, if any. */
  release(): void {
    this.#held.shift()?.();
  }
}
