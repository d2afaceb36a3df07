import { pino, type Logger } from "pino";

/** The router's logger: JSON lines on stdout (or the given destination), level from LOG_LEVEL. */
export function createLogger(options: { level?: string; destination?: number } = {}): Logger {
  const level = options.level ?? process.env.LOG_LEVEL ?? "info";
  return pino({ name: "a2a-router", level }, pino.destination(options.destination ?? 1));
}

/** A logger that writes nothing (tests, embedded use). */
export function silentLogger(): Logger {
  return pino({ level: "silent" });
}
