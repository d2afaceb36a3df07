/**
 * Streams waiting for a task's next turn (a subscription to a task waiting for input, CONTRACT 14), by task:
 * the engine wakes them when a turn of the task starts on this instance or its log grows.
 */
export class TurnWaiters {
  readonly #waiting = new Map<string, Set<() => void>>();

  /** Whether any stream waits (the engine's fan-out looks only then). */
  get idle(): boolean {
    return this.#waiting.size === 0;
  }

  /**
   * Resolves once `wake(taskId)` is called, `signal` aborts, or `ready()` (asked once the waiter is
   * registered, so nothing that happens in between is missed) answers true.
   */
  async wait(taskId: string, signal: AbortSignal, ready: () => Promise<boolean>): Promise<void> {
    let wake!: () => void;
    const woken = new Promise<void>((resolve) => (wake = resolve));
    let waiters = this.#waiting.get(taskId);
    if (!waiters) this.#waiting.set(taskId, (waiters = new Set()));
    waiters.add(wake);
    signal.addEventListener("abort", wake, { once: true });
    try {
      if (signal.aborted || (await ready())) wake();
      await woken;
    } finally {
      signal.removeEventListener("abort", wake);
      waiters.delete(wake);
      if (waiters.size === 0 && this.#waiting.get(taskId) === waiters) this.#waiting.delete(taskId);
    }
  }

  /** Wakes every stream waiting for the task. */
  wake(taskId: string): void {
    const waiters = this.#waiting.get(taskId);
    if (!waiters) return;
    this.#waiting.delete(taskId);
    for (const wake of waiters) wake();
  }
}
