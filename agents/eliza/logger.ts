/**
 * `logger` as elizaOS plugins import it (`import { logger } from "@elizaos/core"`), backed by pino: the
 * router's logger once a hosted agent is created with one (createElizaAgent's `logger`), before that a default
 * that writes JSON lines to stderr at LOG_LEVEL (default info).
 *
 * elizaOS code logs both ways, so both are understood:
 * - pino style: `logger.info({ key: value }, "message")`, `logger.error({ error }, "failed")`;
 * - console style: `logger.error("Error in X:", error)`, `logger.debug(Object.keys(params))`: the arguments
 *   are formatted into the message (util.format; an Error as its message), and an Error among them is kept as
 *   `err`, stack and all.
 */
import { format } from "node:util";
import { pino, type Logger } from "pino";

type Level = "trace" | "debug" | "info" | "warn" | "error" | "fatal";

/** One logging method: `(fields, message?)` or `(message, ...values)`. */
export type LogMethod = (...args: unknown[]) => void;

/** The elizaOS logger's shape. `log` and `success` are info-level, as in elizaOS. */
export interface ElizaLogger {
  trace: LogMethod;
  debug: LogMethod;
  info: LogMethod;
  warn: LogMethod;
  error: LogMethod;
  fatal: LogMethod;
  log: LogMethod;
  success: LogMethod;
}

let backend: Logger | undefined;

function current(): Logger {
  // Made on first use: importing the package must not open anything.
  backend ??= pino({ level: process.env.LOG_LEVEL ?? "info" }, pino.destination(2));
  return backend;
}

/** Points `logger` at `target` (createElizaAgent does, with the router's logger). */
export function setLoggerBackend(target: Logger): void {
  backend = target;
}

function isFields(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value) && !(value instanceof Error);
}

function write(level: Level, args: unknown[]): void {
  const log = current();
  if (!log.isLevelEnabled(level)) return;
  const [first, ...rest] = args;
  if (isFields(first) && (rest.length === 0 || typeof rest[0] === "string")) {
    if (rest.length === 0) log[level](first);
    else log[level](first, format(...rest));
    return;
  }
  const err = args.find((a): a is Error => a instanceof Error);
  // An Error reads as its message in the line; its stack goes with it as `err`.
  const message = format(...args.map((a) => (a instanceof Error ? a.message : a)));
  if (err) log[level]({ err }, message);
  else log[level](message);
}

/** The logger elizaOS plugins use; see the module comment for the call styles it takes. */
export const logger: ElizaLogger = {
  trace: (...args) => write("trace", args),
  debug: (...args) => write("debug", args),
  info: (...args) => write("info", args),
  warn: (...args) => write("warn", args),
  error: (...args) => write("error", args),
  fatal: (...args) => write("fatal", args),
  log: (...args) => write("info", args),
  success: (...args) => write("info", args),
};
