import type { DialectName } from "../core/model.js";
import { isRecord, isV10Card, v03CardEndpoints, v10CardEndpoints } from "../dialects/index.js";
import { deadline } from "./deadline.js";

/** What the router learns about an upstream agent from its card. */
export interface DiscoveredAgent {
  card?: Record<string, unknown>;
  /** Where the card was found, if anywhere. */
  cardUrl?: string;
  dialect: DialectName;
  streaming: boolean;
  /** The JSON-RPC endpoint to call (the card's, for the chosen dialect, when it names one; else the configured url). */
  endpoint: string;
  /**
   * Whether the agent's server answered at all (a card, or an HTTP error for every location). False when
   * no location could be reached: the agent is down, and the rest of this result is only the defaults.
   */
  reached: boolean;
}

const WELL_KNOWN = ["/.well-known/agent-card.json", "/.well-known/agent.json"];
const DISCOVERY_TIMEOUT_MS = 5000;
/** Asked for when fetching a card: a server that speaks both answers with its v1.0 card, which lists every interface. */
const CARD_REQUEST_HEADERS = { accept: "application/json", "A2A-Version": "1.0" } as const;
/** The dialect each A2A protocol version (Major.Minor) is spoken in. 0.2 already had message/send and `kind`. */
const VERSION_DIALECT: Record<string, DialectName> = { "0.1": "v0.1", "0.2": "v0.3", "0.3": "v0.3", "1.0": "v1.0" };
/** Preference when a card offers several JSON-RPC interfaces. */
const PREFERENCE: readonly DialectName[] = ["v1.0", "v0.3", "v0.1"];

/**
 * The card locations tried, in order: the URL itself when it names a card, then the two well-known paths
 * under the URL, then the same two at its origin.
 */
export function cardUrls(url: string): string[] {
  const out: string[] = [];
  const parsed = new URL(url);
  if (/\/(agent-card|agent)\.json$/.test(parsed.pathname)) out.push(url);
  const base = url.replace(/\/+$/, "");
  for (const p of WELL_KNOWN) out.push(base + p);
  for (const p of WELL_KNOWN) if (!out.includes(parsed.origin + p)) out.push(parsed.origin + p);
  return out;
}

/** Normalises a configured `protocol` ("0.1", "v0.3", "1.0", "1.0.1", ...) to a dialect name. */
export function parseProtocol(value: string): DialectName {
  const m = /^v?(\d+)\.(\d+)/i.exec(value.trim());
  const dialect = m ? VERSION_DIALECT[`${Number(m[1])}.${Number(m[2])}`] : undefined;
  if (!dialect) throw new Error(`unknown A2A protocol "${value}" (use 0.1, 0.3 or 1.0)`);
  return dialect;
}

/**
 * The card's JSON-RPC endpoints by the dialect they speak (relative URLs resolved against `cardUrl`):
 * v1.0's `supportedInterfaces` first, then the v0.3/v0.1 members (`url`, `additionalInterfaces`); the
 * first endpoint of a dialect wins, and versions the router does not speak are passed over.
 */
export function jsonRpcEndpoints(card: Record<string, unknown>, cardUrl?: string): Map<DialectName, string> {
  const out = new Map<DialectName, string>();
  for (const { url, protocolVersion } of [...v10CardEndpoints(card), ...v03CardEndpoints(card)]) {
    const dialect = dialectOfVersion(protocolVersion);
    if (!dialect || url === "" || out.has(dialect)) continue;
    out.set(dialect, resolveUrl(url, cardUrl));
  }
  return out;
}

function dialectOfVersion(version: string): DialectName | undefined {
  try {
    return parseProtocol(version);
  } catch {
    return undefined; // a version the router does not speak
  }
}

/** Infers an agent card's dialect: the best JSON-RPC interface it offers that the router speaks. */
export function dialectOfCard(card: Record<string, unknown>): DialectName {
  const endpoints = jsonRpcEndpoints(card);
  return PREFERENCE.find((d) => endpoints.has(d)) ?? (isV10Card(card) ? "v1.0" : "v0.1");
}

/**
 * Reads an upstream agent's card from the well-known paths and picks its dialect (config `protocol`
 * wins), its JSON-RPC endpoint for that dialect, and whether it streams (`capabilities.streaming`, which
 * A2A defaults to false). No card reachable means a v0.1 streaming agent at the configured URL, unless
 * `protocol` says otherwise; a later call can try again. `signal` gives up the lookup (router shutdown).
 */
export async function discoverAgent(
  url: string,
  headers: Record<string, string> = {},
  protocol?: string,
  signal?: AbortSignal,
): Promise<DiscoveredAgent> {
  const wanted = protocol ? parseProtocol(protocol) : undefined;
  let reached = false;
  for (const cardUrl of cardUrls(url)) {
    if (signal?.aborted) break;
    let card: unknown;
    const limit = deadline(DISCOVERY_TIMEOUT_MS, signal);
    try {
      const res = await fetch(cardUrl, { headers: { ...CARD_REQUEST_HEADERS, ...headers }, signal: limit.signal });
      reached = true;
      if (!res.ok) {
        await res.body?.cancel().catch(() => undefined);
        continue;
      }
      card = await res.json();
    } catch {
      continue; // unreachable or not JSON: try the next location
    } finally {
      limit.clear();
    }
    if (!isRecord(card)) continue;
    const dialect = wanted ?? dialectOfCard(card);
    const cardEndpoint = jsonRpcEndpoints(card, cardUrl).get(dialect);
    const caps = isRecord(card.capabilities) ? card.capabilities : {};
    return {
      card,
      cardUrl,
      dialect,
      streaming: caps.streaming === true,
      endpoint: cardEndpoint ? reachableFrom(cardEndpoint, url) : isCardUrl(url) ? new URL(url).origin : url,
      reached,
    };
  }
  return { dialect: wanted ?? "v0.1", streaming: true, endpoint: url, reached };
}

function resolveUrl(url: string, base?: string): string {
  try {
    return new URL(url, base).toString();
  } catch {
    return url;
  }
}

/**
 * Cards often advertise the address the agent bound to (0.0.0.0, ::) rather than one a client can dial;
 * such an endpoint is reached at the configured URL's host instead.
 */
function reachableFrom(endpoint: string, configured: string): string {
  try {
    const e = new URL(endpoint);
    if (e.hostname === "0.0.0.0" || e.hostname === "[::]") {
      e.hostname = new URL(configured).hostname;
      return e.toString();
    }
  } catch {
    // not a URL: leave it for fetch to report
  }
  return endpoint;
}

function isCardUrl(url: string): boolean {
  return /\/(agent-card|agent)\.json$/.test(new URL(url).pathname);
}
