import type { Express, Request } from "express";
import { originSources as sourcesUnder, type OriginPolicy, type OriginSources } from "../net/origin.js";

export { clientAddress, normalizeOrigin, type OriginPolicy, type OriginSources } from "../net/origin.js";

const POLICY_KEY = "a2aOriginPolicy";

/**
 * Sets the policy `requestOrigin` follows for every request of this app. Kept on the app (not passed to each
 * caller) so every route that renders a card, wherever it lives, names the router the same way.
 */
export function setOriginPolicy(app: Express, policy: OriginPolicy): void {
  app.locals[POLICY_KEY] = { ...policy, publicUrl: policy.publicUrl?.replace(/\/+$/, "") };
}

/** The origin policy of the app serving `req` (router/net/origin.ts reads it). */
export function policyOf(req: Request): OriginPolicy {
  return (req.app?.locals?.[POLICY_KEY] as OriginPolicy | undefined) ?? { trustProxy: false };
}

export function originSources(req: Request): OriginSources {
  return sourcesUnder(req, policyOf(req));
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
