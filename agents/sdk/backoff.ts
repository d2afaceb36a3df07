/**
 * Delay before reconnect attempt `attempt` (0-based): exponential from `initialDelayMs`, capped at
 * `maxDelayMs`, with "equal jitter" (half fixed, half random) so a fleet of agents dropped by one router
 * restart does not reconnect in lockstep, yet no attempt comes sooner than half its step.
 */
export function backoffDelay(attempt: number, initialDelayMs: number, maxDelayMs: number, random: () => number = Math.random): number {
  const step = Math.min(maxDelayMs, initialDelayMs * 2 ** Math.min(attempt, 30));
  return Math.round(step / 2 + random() * (step / 2));
}
