import type { Logger } from "pino";
import type { RouterMetrics } from "../observability/metrics.js";
import type { SseRelayOptions } from "../sse/relay.js";

/** How every A2A stream of the HTTP faces is relayed: the heartbeat, the open-streams gauge, failures logged. */
export function sseOptions(deps: { heartbeatMs: number; logger: Logger; metrics?: RouterMetrics }): SseRelayOptions {
  const gauge = deps.metrics?.sseStreams;
  return {
    heartbeatMs: deps.heartbeatMs,
    onError: (err) => deps.logger.error({ err }, "stream failed"),
    ...(gauge && { onOpen: () => gauge.inc(), onEnd: () => gauge.dec() }),
  };
}
