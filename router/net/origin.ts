import type { IncomingMessage } from "node:http";

/**
 * Origins, loopback names and client addresses, below both the HTTP layer (router/http) and the hub: one
 * reading of Host, X-Forwarded-* and publicUrl for every edge that asks "who is the router to this client?"
 * (CONTRACT 12 Origin, 13 Public URL). Plain node types only: no express, no ws.
 */

/** How the router learns the base URL clients reach it by (CONTRACT 13 "Public URL"). */
export interface OriginPolicy {
  /** Configured base URL; wins over everything the request says. */
  publicUrl?: string;
  /** Believe X-Forwarded-Proto / X-Forwarded-Host / X-Forwarded-For (a proxy in front sets them). */
  trustProxy: boolean;
}

/** A host[:port] as it may appear in a URL: no spaces, slashes, '@' or anything that could change a card's URL. */
const HOST_RE = /^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+)(:\d{1,5})?$/;

/** Whether a host name or address is this machine's loopback (a bind on it is reachable from here only). */
export function isLoopback(host: string): boolean {
  return host === "localhost" || host === "::1" || host === "[::1]" || /^127\./.test(host);
}

/** `scheme://host[:port]` of a URL, lower-cased with default ports dropped; undefined when not http(s). */
export function normalizeOrigin(value: string): string | undefined {
  try {
    const url = new URL(value);
    return url.protocol === "http:" || url.protocol === "https:" ? url.origin : undefined;
  } catch {
    return undefined;
  }
}

/** The first value of a header a proxy may have appended to (`a, b`). */
function firstValue(v: string | string[] | undefined): string | undefined {
  const first = (Array.isArray(v) ? v[0] : v)?.split(",")[0]?.trim();
  return first || undefined;
}

/** Where a request's base URL can come from, each when available (see requestOrigin). */
export interface OriginSources {
  /** config publicUrl (may carry a path). */
  configured?: string;
  /** With trustProxy: X-Forwarded-Proto and X-Forwarded-Host (each falling back to the connection's). */
  forwarded?: string;
  /** The connection's scheme and its Host header. */
  host?: string;
}

/** The sources of a request's base URL under `policy` (an HTTP request or a WebSocket upgrade alike). */
export function originSources(req: IncomingMessage, policy: OriginPolicy): OriginSources {
  const socket = req.socket as (IncomingMessage["socket"] & { encrypted?: boolean }) | undefined;
  const proto = socket?.encrypted ? "https" : "http";
  const hostHeader = req.headers.host;
  const out: OriginSources = {};
  if (policy.publicUrl) out.configured = policy.publicUrl.replace(/\/+$/, "");
  if (hostHeader && HOST_RE.test(hostHeader)) out.host = `${proto}://${hostHeader}`;
  if (policy.trustProxy) {
    const fwdProto = firstValue(req.headers["x-forwarded-proto"])?.toLowerCase();
    const fwdHost = firstValue(req.headers["x-forwarded-host"]) ?? hostHeader;
    const scheme = fwdProto === "http" || fwdProto === "https" ? fwdProto : proto;
    if (fwdHost && HOST_RE.test(fwdHost)) out.forwarded = `${scheme}://${fwdHost}`;
  }
  return out;
}

/**
 * Whether `origin` (normalized) is the router's own to this request: the origin cards name (publicUrl, or the
 * forwarded host with trustProxy) or the request's Host. With a loopback bind a Host counts only when it is a
 * loopback name: a page on another name that reaches a loopback router is DNS rebinding (or a proxy that
 * should set trustProxy or publicUrl).
 */
export function isOwnOrigin(req: IncomingMessage, origin: string, policy: OriginPolicy, loopbackBind: boolean): boolean {
  const s = originSources(req, policy);
  const same = (base: string | undefined) => base !== undefined && normalizeOrigin(base) === origin;
  if (same(s.configured) || same(s.forwarded)) return true;
  return same(s.host) && (!loopbackBind || isLoopback(new URL(origin).hostname));
}

/**
 * The client's address for per-address limits: the socket's peer; with trustProxy, the last X-Forwarded-For
 * hop (the one the proxy itself appended; earlier entries are whatever the client chose to send).
 */
export function clientAddress(req: IncomingMessage, trustProxy: boolean): string {
  if (trustProxy) {
    const header = req.headers["x-forwarded-for"];
    const hops = (Array.isArray(header) ? header.join(",") : header)
      ?.split(",")
      .map((s) => s.trim())
      .filter(Boolean);
    if (hops?.length) return hops[hops.length - 1]!;
  }
  return req.socket?.remoteAddress ?? "unknown";
}
