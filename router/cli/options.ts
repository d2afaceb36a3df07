import { type DialectName, TASK_STATES } from "../core/model.js";
import { dialectOfVersion, majorMinor, SUPPORTED_A2A_VERSIONS } from "../dialects/index.js";
import { CliError } from "./exit-codes.js";

export const DEFAULT_ROUTER_URL = "http://127.0.0.1:8080";
export const ENV = { URL: "A2A_ROUTER_URL", API_KEY: "A2A_ROUTER_API_KEY", A2A_VERSION: "A2A_ROUTER_A2A_VERSION" } as const;

/** Flags every client command takes. */
export interface CommonOptions {
  url: string;
  apiKey?: string;
  json?: boolean;
  /** --a2a-version: the dialect to speak; default: what the target's card says. */
  a2aVersion?: string;
}

/** Flags of the commands that send a message (send, stream). */
export interface MessageOptions extends CommonOptions {
  agent?: string;
  session?: string;
  task?: string;
  skill?: string;
  metadata?: string;
}

export function parseRouterUrl(raw: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw CliError.usage(`--url must be an http(s) URL, got "${raw}"`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw CliError.usage(`--url must be an http(s) URL, got "${raw}"`);
  }
  return url;
}

export function parseMetadata(raw: string | undefined): Record<string, unknown> {
  if (raw === undefined) return {};
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch (err) {
    throw CliError.usage(`--metadata is not valid JSON: ${(err as Error).message}`);
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw CliError.usage('--metadata must be a JSON object, e.g. \'{"priority":"high"}\'');
  }
  return value as Record<string, unknown>;
}

export function requireNonEmpty(value: string | undefined, flag: string): string | undefined {
  if (value !== undefined && value.trim() === "") throw CliError.usage(`${flag} must not be empty`);
  return value;
}

export function parseLastEventId(raw: string | undefined): string | undefined {
  if (raw === undefined) return undefined;
  if (!/^\d+$/.test(raw)) throw CliError.usage(`--last-event-id must be a whole number (an event's seq), got "${raw}"`);
  return raw;
}

/** The task id from the positional argument or --task; one is required. */
export function taskIdFrom(positional: string | undefined, flag: string | undefined): string {
  if (positional !== undefined && flag !== undefined && positional !== flag) {
    throw CliError.usage(`two different task ids given: "${positional}" and --task "${flag}"`);
  }
  const id = requireNonEmpty(positional ?? flag, "--task");
  if (id === undefined) throw CliError.usage("a task id is required: pass it as an argument or with --task");
  return id;
}

/** Quotes a value for a shell command line shown to the user, only when it needs it. */
export function shellQuote(value: string): string {
  return /^[\w@%+=:,./-]+$/.test(value) ? value : `'${value.replace(/'/g, `'\\''`)}'`;
}

/** --a2a-version: 0.1, 0.3 or 1.0 (a leading "v" and a patch number are accepted). */
export function parseA2AVersion(raw: string | undefined): DialectName | undefined {
  if (raw === undefined) return undefined;
  const dialect = SUPPORTED_A2A_VERSIONS.includes(majorMinor(raw) ?? "") ? dialectOfVersion(raw) : undefined;
  if (!dialect) throw CliError.usage(`--a2a-version must be 0.1, 0.3 or 1.0, got "${raw}"`);
  return dialect;
}

/** A whole number flag within [min, max]. */
export function parseWholeNumber(raw: string | undefined, flag: string, min: number, max: number): number | undefined {
  if (raw === undefined) return undefined;
  const n = Number(raw);
  if (!/^\d+$/.test(raw) || n < min || n > max) throw CliError.usage(`${flag} must be a whole number from ${min} to ${max}, got "${raw}"`);
  return n;
}

/** The states a listing can be filtered by: all but "unknown", which v1.0 spells TASK_STATE_UNSPECIFIED, i.e. no filter. */
const LISTED_STATES: readonly string[] = [...TASK_STATES].filter((s) => s !== "unknown");

/** --state: an A2A task state, as v0.3 spells it (the v1.0 wire spells it TASK_STATE_...). */
export function parseTaskState(raw: string | undefined): string | undefined {
  if (raw === undefined) return undefined;
  const state = raw
    .trim()
    .toLowerCase()
    .replace(/^task_state_/, "")
    .replace(/_/g, "-");
  if (!LISTED_STATES.includes(state)) throw CliError.usage(`--state must be one of ${LISTED_STATES.join(", ")}; got "${raw}"`);
  return state;
}
