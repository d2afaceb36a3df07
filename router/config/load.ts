import { existsSync, readFileSync } from "node:fs";
import { dirname, isAbsolute, resolve } from "node:path";
import type { SchemaRegistry } from "../schema/validator.js";
import { parseStoreSpec } from "../store/index.js";
import { DEFAULT_CONFIG_FILE, isLoopback, mergeConfig, type RouterConfig, type RouterConfigInput } from "./config.js";

/** A configuration problem: one line for the user, exit code 2. */
export class ConfigError extends Error {
  override name = "ConfigError";
}

/** Reads the config file: the given path (must exist) or ./a2a-router.config.json when present. */
export function readConfigFile(path: string | undefined, cwd = process.cwd()): RouterConfigInput {
  const file = path ? resolve(cwd, path) : resolve(cwd, DEFAULT_CONFIG_FILE);
  if (!existsSync(file)) {
    if (path) throw new ConfigError(`Invalid config: file ${path} does not exist`);
    return {};
  }
  let input: RouterConfigInput;
  try {
    input = JSON.parse(readFileSync(file, "utf8")) as RouterConfigInput;
  } catch (err) {
    throw new ConfigError(`Invalid config: ${file} is not valid JSON (${(err as Error).message})`);
  }
  return pathsRelativeTo(input, dirname(file));
}

/**
 * Relative paths in a config file (eliza.character, eliza.plugins, a sqlite: store) are relative to the
 * file, not to wherever the router is started from; flags and env stay relative to the working directory.
 */
function pathsRelativeTo(input: RouterConfigInput, dir: string): RouterConfigInput {
  if (!input || typeof input !== "object") return input;
  const at = (p: unknown) => (typeof p === "string" && p !== "" && !isAbsolute(p) ? resolve(dir, p) : p);
  const out = { ...input };
  if (out.eliza && typeof out.eliza === "object") {
    out.eliza = { ...out.eliza };
    if (out.eliza.character !== undefined) out.eliza.character = at(out.eliza.character) as string;
    if (Array.isArray(out.eliza.plugins)) out.eliza.plugins = out.eliza.plugins.map(at) as string[];
  }
  if (typeof out.store === "string" && out.store.startsWith("sqlite:") && out.store !== "sqlite::memory:") {
    out.store = `sqlite:${at(out.store.slice("sqlite:".length))}`;
  }
  return out;
}

/** The environment's layer: HOST, PORT, HUB_TOKENS="tok1=agentA,tok2=agentB", ROUTER_API_KEYS, ... */
export function configFromEnv(env: NodeJS.ProcessEnv): RouterConfigInput {
  const out: RouterConfigInput = {};
  if (env.HOST) out.host = env.HOST;
  if (env.PORT) out.port = intFrom("PORT", env.PORT);
  if (env.GRPC_PORT) out.grpc = { port: intFrom("GRPC_PORT", env.GRPC_PORT) };
  if (env.A2A_ROUTER_STORE) out.store = env.A2A_ROUTER_STORE;
  if (env.DEFAULT_AGENT) out.defaultAgent = env.DEFAULT_AGENT;
  if (env.TASK_TIMEOUT_MS) out.taskTimeoutMs = intFrom("TASK_TIMEOUT_MS", env.TASK_TIMEOUT_MS);
  if (env.HEARTBEAT_MS) out.heartbeatMs = intFrom("HEARTBEAT_MS", env.HEARTBEAT_MS);
  if (env.ROUTER_API_KEYS) out.apiKeys = splitList(env.ROUTER_API_KEYS);
  if (env.HUB_TOKENS) {
    const tokens: Record<string, string[]> = {};
    for (const pair of splitList(env.HUB_TOKENS)) {
      const at = pair.indexOf("=");
      if (at <= 0 || at === pair.length - 1) throw new ConfigError(`Invalid config: HUB_TOKENS entry "${pair}" must be token=agentName`);
      const token = pair.slice(0, at);
      (tokens[token] ??= []).push(pair.slice(at + 1));
    }
    out.hub = { tokens };
  }
  if (env.CORS_ORIGINS) out.cors = { origins: splitList(env.CORS_ORIGINS) };
  if (env.PUBLIC_URL) out.publicUrl = env.PUBLIC_URL;
  if (env.TRUST_PROXY) out.trustProxy = boolFrom("TRUST_PROXY", env.TRUST_PROXY);
  if (env.A2A_ROUTER_REDIS_PREFIX) out.redisPrefix = env.A2A_ROUTER_REDIS_PREFIX;
  if (env.CLUSTER_LEASE_MS) out.cluster = { leaseMs: intFrom("CLUSTER_LEASE_MS", env.CLUSTER_LEASE_MS) };
  if (env.IDEMPOTENCY_TTL_MS) out.idempotency = { ttlMs: intFrom("IDEMPOTENCY_TTL_MS", env.IDEMPOTENCY_TTL_MS) };
  if (env.HUB_TIMEOUT_MS) out.hub = { ...out.hub, timeoutMs: intFrom("HUB_TIMEOUT_MS", env.HUB_TIMEOUT_MS) };
  if (env.UPSTREAM_IDLE_MS) out.limits = { ...out.limits, upstreamIdleMs: intFrom("UPSTREAM_IDLE_MS", env.UPSTREAM_IDLE_MS) };
  if (env.HUB_BYTES_PER_SECOND) out.limits = { ...out.limits, hubBytesPerSecond: intFrom("HUB_BYTES_PER_SECOND", env.HUB_BYTES_PER_SECOND) };
  if (env.HUB_SHARED_BYTES_PER_SECOND)
    out.limits = { ...out.limits, hubSharedBytesPerSecond: intFrom("HUB_SHARED_BYTES_PER_SECOND", env.HUB_SHARED_BYTES_PER_SECOND) };
  if (env.MAX_CONNECTIONS_PER_ADDRESS)
    out.limits = { ...out.limits, maxConnectionsPerAddress: intFrom("MAX_CONNECTIONS_PER_ADDRESS", env.MAX_CONNECTIONS_PER_ADDRESS) };
  if (env.COMMIT_RETRY_MS) out.limits = { ...out.limits, commitRetryMs: intFrom("COMMIT_RETRY_MS", env.COMMIT_RETRY_MS) };
  if (env.HUB_REGISTER_TIMEOUT_MS) out.hub = { ...out.hub, registerTimeoutMs: intFrom("HUB_REGISTER_TIMEOUT_MS", env.HUB_REGISTER_TIMEOUT_MS) };
  if (env.HUB_RESUME_GRACE_MS) out.hub = { ...out.hub, resumeGraceMs: intFrom("HUB_RESUME_GRACE_MS", env.HUB_RESUME_GRACE_MS) };
  if (env.HUB_ALLOWED_ORIGINS) out.hub = { ...out.hub, allowedOrigins: splitList(env.HUB_ALLOWED_ORIGINS) };
  return out;
}

function splitList(v: string): string[] {
  return v
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
}

function boolFrom(name: string, v: string): boolean {
  if (/^(1|true|yes)$/i.test(v)) return true;
  if (/^(0|false|no)$/i.test(v)) return false;
  throw new ConfigError(`Invalid config: ${name} must be true or false, got "${v}"`);
}

function intFrom(name: string, v: string): number {
  const n = Number(v);
  if (!Number.isInteger(n)) throw new ConfigError(`Invalid config: ${name} must be an integer, got "${v}"`);
  return n;
}

/**
 * Merges file < env < flags, validates against schemas/config.schema.json and checks the rules the
 * schema cannot express. Throws ConfigError with one line naming the bad key.
 */
export function resolveConfig(schemas: SchemaRegistry, layers: { file?: RouterConfigInput; env?: RouterConfigInput; flags?: RouterConfigInput }): RouterConfig {
  for (const [name, layer] of Object.entries(layers)) {
    if (!layer) continue;
    const issue = schemas.check("config", layer);
    if (issue) throw new ConfigError(`Invalid config (${name === "file" ? "config file" : name}): ${issue.message}`);
  }
  const config = mergeConfig(layers.file ?? {}, layers.env ?? {}, layers.flags ?? {});
  try {
    parseStoreSpec(config.store);
  } catch (err) {
    throw new ConfigError(`Invalid config: ${(err as Error).message.replace(/^--store/, "store")}`);
  }
  for (const [key, origins] of [
    ["cors.origins", config.cors.origins],
    ["hub.allowedOrigins", config.hub.allowedOrigins],
  ] as const) {
    const bad = origins.find((o) => !isOrigin(o));
    if (bad !== undefined) throw new ConfigError(`Invalid config: ${key} entry "${bad}" must be an origin like https://app.example.com`);
  }
  const ids = new Set<string>();
  for (const a of config.agents) {
    if (ids.has(a.id)) throw new ConfigError(`Invalid config: agents has the id "${a.id}" twice`);
    ids.add(a.id);
  }
  checkEdgeSettings(config);
  if (!isLoopback(config.host) && config.apiKeys.length === 0 && !config.allowOpen) {
    throw new ConfigError(`Refusing to serve on ${config.host} without client API keys: set apiKeys (or ROUTER_API_KEYS), or pass --allow-open`);
  }
  return config;
}

/** What the schema cannot say about publicUrl: an http(s) base URL (a path prefix allowed). */
function checkEdgeSettings(config: RouterConfig): void {
  if (config.publicUrl === undefined) return;
  const url = httpUrl(config.publicUrl);
  if (!url || url.search || url.hash) throw new ConfigError(`Invalid config: publicUrl must be an http(s) URL without query, got "${config.publicUrl}"`);
}

function httpUrl(v: string): URL | undefined {
  try {
    const url = new URL(v);
    return url.protocol === "http:" || url.protocol === "https:" ? url : undefined;
  } catch {
    return undefined;
  }
}

/** `scheme://host[:port]` and nothing more: what a browser sends in `Origin`. */
function isOrigin(v: string): boolean {
  try {
    const url = new URL(v);
    return (url.protocol === "http:" || url.protocol === "https:") && url.pathname === "/" && !url.search && !url.hash && !url.username;
  } catch {
    return false;
  }
}
