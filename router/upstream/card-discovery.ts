import type { DialectName } from "../core/model.js";
import { dialectOfVersion, isRecord, isV10Card, speaksUpstream, v03CardEndpoints, v10CardEndpoints, type UpstreamBinding } from "../dialects/index.js";
import { boundedText, deadline } from "../client/index.js";
import { MAX_CARD_BYTES } from "./limits.js";

/** What the router learns about an upstream agent from its card. */
export interface DiscoveredAgent {
  card?: Record<string, unknown>;
  /** Where the card was found, if anywhere. */
  cardUrl?: string;
  dialect: DialectName;
  /** How the dialect is carried: JSON-RPC, or the HTTP+JSON (REST) or gRPC binding (v1.0 only). */
  binding: UpstreamBinding;
  streaming: boolean;
  /**
   * The interface URL to call (the card's, for the chosen dialect and binding, when it names one; else the
   * configured url). HTTP+JSON operations are paths under it; for gRPC it is the `host:port` to dial.
   */
  endpoint: string;
  /** The chosen interface's `tenant` (v1.0), when the card names one: every request carries it. */
  tenant?: string;
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

/** What the router speaks to an agent: a dialect over a binding. */
export interface UpstreamInterface {
  dialect: DialectName;
  binding: UpstreamBinding;
}

/**
 * Preference when a card offers several interfaces the router speaks: the newest dialect first, and within
 * one dialect JSON-RPC before HTTP+JSON (the two carry the same objects; JSON-RPC is the binding every
 * A2A server offers, so REST is used when a v1.0 agent offers nothing else, or when config asks for it).
 * gRPC comes last of all: the card is read over HTTP anyway, and an agent that also offers an HTTP binding
 * is reached the way every other agent is; gRPC is used when the card offers nothing else the router
 * speaks, or when config asks for it ("1.0+grpc").
 */
const PREFERENCE: readonly UpstreamInterface[] = [
  { dialect: "v1.0", binding: "JSONRPC" },
  { dialect: "v1.0", binding: "HTTP+JSON" },
  { dialect: "v0.3", binding: "JSONRPC" },
  { dialect: "v0.1", binding: "JSONRPC" },
  { dialect: "v1.0", binding: "GRPC" },
];
/** A bare version's bindings, in the order a card's offers are taken (config "1.0": JSON-RPC first). */
const BINDINGS: readonly UpstreamBinding[] = ["JSONRPC", "HTTP+JSON", "GRPC"];
/** Config `protocol` suffixes that name a binding ("1.0+rest"). */
const BINDING_SUFFIX: Record<string, UpstreamBinding> = { rest: "HTTP+JSON", jsonrpc: "JSONRPC", grpc: "GRPC" };

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

/** Normalises a configured `protocol` ("0.1", "v0.3", "1.0", "1.0.1", "1.0+rest", ...) to a dialect name. */
export function parseProtocol(value: string): DialectName {
  return parseProtocolChoice(value).dialect;
}

/**
 * A configured `protocol` as a dialect and, when it names one, a binding: "1.0+rest" is v1.0 over HTTP+JSON,
 * "1.0+grpc" v1.0 over gRPC, "1.0+jsonrpc" v1.0 over JSON-RPC even when the card offers another too; a bare
 * version leaves the binding to the card (JSON-RPC first).
 */
export function parseProtocolChoice(value: string): { dialect: DialectName; binding?: UpstreamBinding } {
  const [version = "", suffix, ...rest] = value.trim().split("+");
  const dialect = rest.length === 0 && (suffix === undefined || /^[a-z]+$/i.test(suffix)) ? dialectOfVersion(version) : undefined;
  if (!dialect) throw new Error(`unknown A2A protocol "${value}" (use 0.1, 0.3, 1.0, 1.0+rest or 1.0+grpc)`);
  if (suffix === undefined) return { dialect };
  const binding = BINDING_SUFFIX[suffix.toLowerCase()];
  if (!binding || !speaks({ dialect, binding })) {
    throw new Error(`unknown A2A protocol "${value}" (the HTTP+JSON and gRPC bindings are spoken for 1.0 only: 1.0+rest, 1.0+grpc)`);
  }
  return { dialect, binding };
}

/** Whether the router has a client for this dialect over this binding. */
function speaks({ dialect, binding }: UpstreamInterface): boolean {
  return speaksUpstream(dialect, binding);
}

const key = ({ dialect, binding }: UpstreamInterface) => `${dialect} ${binding}`;

/** Where an interface a card offers is reached: its URL (gRPC: `host:port`) and the tenant it names. */
export interface OfferedEndpoint {
  url: string;
  tenant?: string;
}

/**
 * The card's endpoints by the interface they offer (relative URLs resolved against `cardUrl`; a gRPC
 * `host:port` is kept as written): v1.0's `supportedInterfaces` first, then the v0.3/v0.1 members (`url`,
 * `additionalInterfaces`); the first endpoint of a dialect and binding wins, and versions or bindings the
 * router does not speak are passed over.
 */
export function cardEndpoints(card: Record<string, unknown>, cardUrl?: string): Map<string, OfferedEndpoint> {
  const out = new Map<string, OfferedEndpoint>();
  for (const { url, protocolVersion, binding, tenant } of [...v10CardEndpoints(card), ...v03CardEndpoints(card)]) {
    const dialect = dialectOfVersion(protocolVersion);
    if (!dialect || url === "" || !speaks({ dialect, binding }) || out.has(key({ dialect, binding }))) continue;
    out.set(key({ dialect, binding }), { url: binding === "GRPC" ? url : resolveUrl(url, cardUrl), ...(tenant !== undefined && { tenant }) });
  }
  return out;
}

/** The card's JSON-RPC endpoints by the dialect they speak (see cardEndpoints). */
export function jsonRpcEndpoints(card: Record<string, unknown>, cardUrl?: string): Map<DialectName, string> {
  const all = cardEndpoints(card, cardUrl);
  const out = new Map<DialectName, string>();
  for (const { dialect } of PREFERENCE) {
    const url = all.get(key({ dialect, binding: "JSONRPC" }))?.url;
    if (url !== undefined) out.set(dialect, url);
  }
  return out;
}

/** Infers an agent card's dialect: that of the best interface it offers that the router speaks. */
export function dialectOfCard(card: Record<string, unknown>): DialectName {
  return interfaceOfCard(card).dialect;
}

/**
 * The interface the router speaks to an agent, and its URL (and tenant) when the card names one: the
 * configured choice (`wanted`; a bare dialect takes JSON-RPC when the card offers it for that dialect, else
 * HTTP+JSON, else gRPC), else the best the card offers (PREFERENCE), else what a card of its shape implies.
 */
export function interfaceOfCard(
  card: Record<string, unknown>,
  cardUrl?: string,
  wanted?: { dialect: DialectName; binding?: UpstreamBinding },
): UpstreamInterface & { url?: string; tenant?: string } {
  const endpoints = cardEndpoints(card, cardUrl);
  const candidates = wanted ? (wanted.binding ? [wanted.binding] : BINDINGS).map((binding) => ({ dialect: wanted.dialect, binding })) : PREFERENCE;
  const offered = candidates.find((i) => endpoints.has(key(i)));
  if (offered) return { ...offered, ...endpoints.get(key(offered)) };
  if (wanted) return { dialect: wanted.dialect, binding: wanted.binding ?? "JSONRPC" };
  return { dialect: isV10Card(card) ? "v1.0" : "v0.1", binding: "JSONRPC" };
}

/**
 * Reads an upstream agent's card from the well-known paths and picks its dialect and binding (config
 * `protocol` wins; see interfaceOfCard), the card's endpoint for them, and whether it streams
 * (`capabilities.streaming`, which A2A defaults to false). No card reachable means a v0.1 streaming agent
 * at the configured URL, unless `protocol` says otherwise; a later call can try again. `signal` gives up
 * the lookup (router shutdown).
 */
export async function discoverAgent(url: string, headers: Record<string, string> = {}, protocol?: string, signal?: AbortSignal): Promise<DiscoveredAgent> {
  const wanted = protocol ? parseProtocolChoice(protocol) : undefined;
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
      card = JSON.parse(await boundedText(res, MAX_CARD_BYTES));
    } catch {
      continue; // unreachable, not JSON, or larger than any card: try the next location
    } finally {
      limit.clear();
    }
    if (!isRecord(card)) continue;
    const { dialect, binding, url: cardEndpoint, tenant } = interfaceOfCard(card, cardUrl, wanted);
    const caps = isRecord(card.capabilities) ? card.capabilities : {};
    const reachable = binding === "GRPC" ? grpcReachableFrom : reachableFrom;
    return {
      card,
      cardUrl,
      dialect,
      binding,
      streaming: caps.streaming === true,
      endpoint: cardEndpoint ? reachable(cardEndpoint, url) : isCardUrl(url) ? new URL(url).origin : url,
      ...(tenant !== undefined && { tenant }),
      reached,
    };
  }
  return { dialect: wanted?.dialect ?? "v0.1", binding: wanted?.binding ?? "JSONRPC", streaming: true, endpoint: url, reached };
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

/** The same for a gRPC `host:port` (`0.0.0.0:50051`, `[::]:50051`). */
function grpcReachableFrom(target: string, configured: string): string {
  const unbound = /^(0\.0\.0\.0|\[::\]):(\d+)$/.exec(target);
  return unbound ? `${new URL(configured).hostname}:${unbound[2]}` : target;
}

function isCardUrl(url: string): boolean {
  return /\/(agent-card|agent)\.json$/.test(new URL(url).pathname);
}
