/** A signal that aborts after `ms` or when `parent` aborts, whichever comes first. */
export interface Deadline {
  signal: AbortSignal;
  /** Stops the timer and detaches from the parent; call once the request is over. */
  clear(): void;
}

/**
 * Request deadlines for outgoing fetches.
 *
 * Not `AbortSignal.timeout()` combined with `AbortSignal.any()`: on Node 20 the timeout signal is held only
 * weakly by its timer and the combined signal only weakly by its sources, so a garbage collection while the
 * request waits can collect them and the fetch then never aborts (a hanging webhook or agent would hold its
 * caller forever). Here the timer closure and the parent's listener hold the controller strongly.
 */
export function deadline(ms: number, parent?: AbortSignal): Deadline {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(new DOMException(`timed out after ${ms} ms`, "TimeoutError")), ms);
  // The request's socket keeps the process alive while it matters; the timer alone must not.
  timer.unref();
  const onParentAbort = () => controller.abort(parent?.reason);
  if (parent?.aborted) onParentAbort();
  else parent?.addEventListener("abort", onParentAbort, { once: true });
  return {
    signal: controller.signal,
    clear() {
      clearTimeout(timer);
      parent?.removeEventListener("abort", onParentAbort);
    },
  };
}
