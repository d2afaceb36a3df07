import { readFileSync } from "node:fs";
import { join } from "node:path";
import { schemasDir } from "../../router/schema/paths.js";
import { AgentOptionsError } from "./errors.js";
import type { AgentLogger, ConnectAgentOptions } from "./types.js";

/** Every default in one place. */
export const DEFAULTS = {
  concurrency: 8,
  heartbeatMs: 15_000,
  /** Heartbeats sent in a row without any frame from the hub before the link is presumed dead. */
  unansweredHeartbeats: 3,
  maxBufferedFrames: 10_000,
  /** How long the hub gets to answer agent.register before the link is redialed. */
  registerTimeoutMs: 10_000,
  initialDelayMs: 500,
  maxDelayMs: 30_000,
  /** How long close() waits for the closing handshake before cutting the socket. */
  closeTimeoutMs: 2_000,
  /** How much of a refused upgrade's body is kept for the error message. */
  refusalBodyBytes: 1_024,
} as const;

/** HTTP statuses of a refused upgrade that no retry will fix. */
export const FATAL_UPGRADE_STATUSES: ReadonlySet<number> = new Set([400, 401, 403, 404]);

const STDERR_LOGGER: AgentLogger = {
  debug: () => {},
  info: () => {},
  warn: (msg) => process.stderr.write(`[a2a-agent] ${msg}\n`),
  error: (msg) => process.stderr.write(`[a2a-agent] ${msg}\n`),
};

/** connectAgent options, validated, with every default filled in. */
export interface Settings {
  /** The hubs to dial, in turn (at least one). */
  urls: string[];
  name: string;
  token?: string;
  card?: Record<string, unknown>;
  concurrency: number;
  reconnect: { initialDelayMs: number; maxDelayMs: number } | false;
  heartbeatMs: number;
  maxBufferedFrames: number;
  registerTimeoutMs: number;
  streaming?: boolean;
  logger: AgentLogger;
}

function positive(value: unknown, field: string, fallback: number, allowInfinity = false): number {
  if (value === undefined) return fallback;
  if (typeof value !== "number" || !(value > 0) || (!allowInfinity && !Number.isFinite(value))) {
    throw new AgentOptionsError(field, `must be a positive number, got ${JSON.stringify(value)}`);
  }
  return value;
}

function hubUrl(value: unknown, field: string): string {
  if (typeof value !== "string" || value === "") throw new AgentOptionsError(field, "is required (ws://HOST:PORT/hub)");
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new AgentOptionsError(field, `is not a URL: ${JSON.stringify(value)}`);
  }
  if (url.protocol === "http:") url.protocol = "ws:";
  else if (url.protocol === "https:") url.protocol = "wss:";
  else if (url.protocol !== "ws:" && url.protocol !== "wss:") {
    throw new AgentOptionsError(field, `must be a ws(s):// URL (or http(s)://, dialed as ws(s)://), got ${JSON.stringify(value)}`);
  }
  return url.toString();
}

/** One hub URL, or several (router instances on one store) tried in turn on reconnect. */
function hubUrls(value: unknown): string[] {
  if (!Array.isArray(value)) return [hubUrl(value, "options.url")];
  if (value.length === 0) throw new AgentOptionsError("options.url", "must list at least one hub URL");
  return value.map((v, i) => hubUrl(v, `options.url[${i}]`));
}

let nameRule: { pattern: RegExp; maxLength: number } | undefined;

/**
 * The hub's rule for agent names, read once from its one home (`agent_name` in schemas/hub.schema.json),
 * so a bad name fails at once here rather than as a refusal after connecting.
 */
function agentNameRule(): { pattern: RegExp; maxLength: number } {
  if (!nameRule) {
    const schema = JSON.parse(readFileSync(join(schemasDir(), "hub.schema.json"), "utf8"));
    const rule = schema.$defs.Register.properties.agent_name as { pattern: string; maxLength: number };
    nameRule = { pattern: new RegExp(rule.pattern), maxLength: rule.maxLength };
  }
  return nameRule;
}

function agentName(value: unknown): string {
  if (typeof value !== "string" || value.trim() === "") throw new AgentOptionsError("options.name", "must be a non-empty string");
  const { pattern, maxLength } = agentNameRule();
  if (value.length > maxLength) {
    throw new AgentOptionsError("options.name", `must be at most ${maxLength} characters, got ${value.length}`);
  }
  if (!pattern.test(value)) {
    throw new AgentOptionsError(
      "options.name",
      `must start with a letter or digit and hold only letters, digits, ".", "_" and "-" (${pattern.source}), got ${JSON.stringify(value)}`,
    );
  }
  return value;
}

/** Validates the options; throws AgentOptionsError naming the bad field. */
export function settingsFrom(options: ConnectAgentOptions): Settings {
  if (typeof options !== "object" || options === null) throw new AgentOptionsError("options", "must be an object");
  const urls = hubUrls(options.url);
  const name = agentName(options.name);
  if (options.token !== undefined && (typeof options.token !== "string" || options.token === "")) {
    throw new AgentOptionsError("options.token", "must be a non-empty string when given");
  }
  if (options.card !== undefined && (typeof options.card !== "object" || options.card === null)) {
    throw new AgentOptionsError("options.card", "must be an object");
  }
  let reconnect: Settings["reconnect"] = false;
  if (options.reconnect !== false) {
    const r = options.reconnect ?? {};
    if (typeof r !== "object" || r === null) throw new AgentOptionsError("options.reconnect", "must be an object or false");
    const initialDelayMs = positive(r.initialDelayMs, "options.reconnect.initialDelayMs", DEFAULTS.initialDelayMs);
    const maxDelayMs = positive(r.maxDelayMs, "options.reconnect.maxDelayMs", Math.max(DEFAULTS.maxDelayMs, initialDelayMs));
    if (maxDelayMs < initialDelayMs) {
      throw new AgentOptionsError("options.reconnect.maxDelayMs", "must not be less than initialDelayMs");
    }
    reconnect = { initialDelayMs, maxDelayMs };
  }
  if (options.concurrency !== undefined && !Number.isInteger(options.concurrency) && options.concurrency !== Infinity) {
    throw new AgentOptionsError("options.concurrency", `must be a positive integer, got ${JSON.stringify(options.concurrency)}`);
  }
  return {
    urls,
    name,
    token: options.token,
    card: options.card,
    concurrency: positive(options.concurrency, "options.concurrency", DEFAULTS.concurrency, true),
    reconnect,
    heartbeatMs: positive(options.heartbeatMs, "options.heartbeatMs", DEFAULTS.heartbeatMs),
    maxBufferedFrames: positive(options.maxBufferedFrames, "options.maxBufferedFrames", DEFAULTS.maxBufferedFrames),
    registerTimeoutMs: positive(options.registerTimeoutMs, "options.registerTimeoutMs", DEFAULTS.registerTimeoutMs),
    streaming: options.streaming,
    logger: options.logger ?? STDERR_LOGGER,
  };
}
