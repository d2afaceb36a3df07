/** Logging (pino) and Prometheus metrics (prom-client). */
export { createLogger, silentLogger } from "./logger.js";
export { RouterMetrics } from "./metrics.js";
