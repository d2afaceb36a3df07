import type { IncomingMessage } from "node:http";
import type { Request } from "express";
import type { Express } from "express";

/** How the router learns the base URL clients reach it by (CONTRACT 13 "Public URL"). */
export interface OriginPolicy {
  /** Configured base URL; wins over everything the request says. */
  publicUrl?: string;
  /** Believe X-Forwarded-Proto / X-Forwarded-Host / X-Forwarded-For (a proxy in front sets them). */
  trustProxy: boolean;
}

const POLICY_KEY = "a2aOriginPolicy";
/** A host[:port] as it may appear in a URL: no spaces, slashes, '@' or anything that could change a card's URL. */
const HOST_RE = /^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+)(:\d{1,5})?$/;

/**
 * Sets the policy `requestOrigin` follows for every request of this app. Kept on the app (not passed to each
 * caller) so every route that renders a card, wherever it lives, names the router the same way.
 */
export function setOriginPolicy(app: Express, policy: OriginPolicy): void {
  app.locals[POLICY_KEY] = { ...policy, publicUrl: policy.publicUrl?.replace(/\/+$/, "") };
}

function policyOf(req: Request): OriginPolicy {
  return (req.app?.locals?.[POLICY_KEY] as OriginPolicy | undefined) ?? { trustProxy: false };
}

/** The first value of a header a proxy may have appended to (`a, b`). */
function firstValue(v: string | undefined): string | undefined {
  const first = v?.split(",")[0]?.trim();
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

export function originSources(req: Request): OriginSources {
  const policy = policyOf(req);
  const proto = req.socket && "encrypted" in req.socket && req.socket.encrypted ? "https" : "http";
  const hostHeader = req.get("host");
  const out: OriginSources = {};
  if (policy.publicUrl) out.configured = policy.publicUrl;
  if (hostHeader && HOST_RE.test(hostHeader)) out.host = `${proto}://${hostHeader}`;
  if (policy.trustProxy) {
    const fwdProto = firstValue(req.get("x-forwarded-proto"))?.toLowerCase();
    const fwdHost = firstValue(req.get("x-forwarded-host")) ?? hostHeader;
    const scheme = fwdProto === "http" || fwdProto === "https" ? fwdProto : proto;
    if (fwdHost && HOST_RE.test(fwdHost)) out.forwarded = `${scheme}://${fwdHost}`;
  }
  return out;
}

/**
 * The base URL the client addressed the router by (`scheme://host[:port]`, or publicUrl with its path):
 * config publicUrl; else, with trustProxy, X-Forwarded-Proto and X-Forwarded-Host (each falling back to the
 * connection's scheme and Host); else the connection's scheme and its Host header. Undefined when the
 * request gives no usable host (a card then names the bind address).
 */
export function requestOrigin(req: Request): string | undefined {
  const s = originSources(req);
  return s.configured ?? s.forwarded ?? s.host;
}

/**
 * The client's address for per-address limits: the socket's peer; with trustProxy, the last X-Forwarded-For
 * hop (the one the proxy itself appended; earlier entries are whatever the client chose to send).
 */
export function clientAddress(req: IncomingMessage, trustProxy: boolean): string {
  if (trustProxy) {
    const header = req.headers["x-forwarded-for"];
    const hops = (Array.isArray(header) ? header.join(",") : header)?.split(",").map((s) => s.trim()).filter(Boolean);
    if (hops?.length) return hops[hops.length - 1]!;
  }
  return req.socket?.remoteAddress ?? "unknown";
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
