/** Backoff for looking an unreachable upstream agent up again. */
export interface RetryPolicy {
  /** The first retry's delay, before jitter. */
  initialMs: number;
  /** No delay is longer than this. */
  maxMs: number;
}

export const RETRY_DEFAULTS: RetryPolicy = { initialMs: 500, maxMs: 30_000 };

/**
 * The delay before retry number `attempt` (0 = the first): exponential from `initialMs`, capped at
 * `maxMs`, with "equal jitter" (a random point in the upper half), so routers restarted together do not
 * knock on a recovering agent in step, and a retry never comes sooner than half the planned delay.
 */
export function retryDelay(attempt: number, policy: RetryPolicy, random: () => number = Math.random): number {
  const planned = Math.min(policy.maxMs, policy.initialMs * 2 ** Math.min(attempt, 30));
  return Math.round(planned / 2 + random() * (planned / 2));
}

/**
 * Runs `task` again after each failure, with retryDelay between tries, until it succeeds or `stop()` is
 * called. One timer at a time, unref'd: a pending retry never keeps the process alive.
 */
export class Retrier {
  #policy: RetryPolicy;
  #task: () => Promise<boolean>;
  #attempt = 0;
  #timer: NodeJS.Timeout | undefined;
  #stopped = false;

  /** `task` resolves true when it succeeded (no more retries), false to be tried again. */
  constructor(task: () => Promise<boolean>, policy: RetryPolicy = RETRY_DEFAULTS) {
    this.#task = task;
    this.#policy = policy;
  }

  /** Whether a retry is waiting. */
  get pending(): boolean {
    return this.#timer !== undefined;
  }

  /** Schedules the next try, unless one is already waiting or the retrier was stopped. */
  schedule(): void {
    if (this.#stopped || this.#timer) return;
    const delay = retryDelay(this.#attempt++, this.#policy);
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      void this.#task().then(
        (ok) => (ok ? this.reset() : this.schedule()),
        () => this.schedule(),
      );
    }, delay);
    this.#timer.unref();
  }

  /** Back to the first delay (after a success). */
  reset(): void {
    this.#attempt = 0;
  }

  /** No more tries; a waiting one is dropped. */
  stop(): void {
    this.#stopped = true;
    clearTimeout(this.#timer);
    this.#timer = undefined;
  }
}
