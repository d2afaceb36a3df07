/**
 * The hub's limits and defaults, in one place below everything that bounds by them: the hub enforces them on
 * its sockets, the upstream connector bounds an HTTP agent's answer by the same frame limit, and the cluster's
 * agent directory forgets offline anonymous agents at the same count. hub/protocol.ts re-exports them. Plain
 * data in core, which every one of them may import (the hub may not import router/config).
 */
export const HUB_DEFAULTS = {
  /** Largest frame accepted from an agent. */
  maxPayload: 16 * 1024 * 1024,
  /** Upper bound on the ws-level ping interval; the actual interval is also at most a third of the timeout. */
  maxPingIntervalMs: 30_000,
  /** Anonymous agents kept listed (offline) after they leave; older ones are forgotten. */
  maxOfflineAnonymous: 256,
  /** How long agents get to answer the close handshake at shutdown. */
  closeGraceMs: 1000,
  /** A socket that has not registered by then is closed (config `hub.registerTimeoutMs`). */
  registerTimeoutMs: 10_000,
  /** How long an agent that dropped keeps its tasks in flight (config `hub.resumeGraceMs`). */
  resumeGraceMs: 2000,
};
