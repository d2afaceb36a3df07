import type { NextFunction, Request, Response } from "express";
import { isLoopback, isOwnOrigin, normalizeOrigin } from "../net/origin.js";
import { policyOf } from "./origin.js";
import { refuse } from "./refusal.js";

/** What a preflight from a listed origin is told (CONTRACT 10 "CORS"). */
export const CORS_ALLOW = {
  methods: "POST, GET, OPTIONS",
  // The contract's list, plus X-API-Key: the README offers it beside Authorization for the same keys.
  headers: "authorization, content-type, last-event-id, a2a-version, x-agent, x-session-id, x-api-key, idempotency-key",
  /** Seconds a browser may cache a preflight answer. */
  maxAge: "600",
  /**
   * Response headers a browser app may read cross-origin (beyond the CORS-safelisted ones): the chat faces'
   * task and session ids, the AI SDK stream marker, `x-should-retry` (the openai client reads it), and the
   * refusals' `Retry-After` and `WWW-Authenticate`.
   */
  exposeHeaders: "x-task-id, x-session-id, x-vercel-ai-ui-message-stream, x-should-retry, retry-after, www-authenticate, a2a-version",
} as const;

/** Paths browsers may call cross-origin: /rpc, /, /agents/*, /v1/*, /api/*. */
const CORS_PATH = /^\/(rpc\/?|agents(\/.*)?|v1\/.*|api\/.*)?$/;
/** Methods that change nothing; everything else is checked against the allow-list. */
const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

export interface OriginGuardOptions {
  /** cors.origins: browser origins allowed besides the router's own. */
  origins: readonly string[];
  /** The address the router binds; with a loopback bind, only loopback Host names count as "own". */
  bindHost: string;
  /** Check GET requests too (MCP's rule for its streams: a server validates Origin on every connection). */
  allMethods?: boolean;
}

/**
 * CORS and the Origin check on state-changing requests, one middleware ahead of every route.
 *
 * - A listed origin gets `Access-Control-Allow-Origin` and `Access-Control-Expose-Headers` (with
 *   `Vary: Origin`) on every response, and its
 *   preflights on the CORS paths are answered; an unlisted origin's preflight gets no allow headers.
 * - A POST (any non-GET/HEAD/OPTIONS) whose `Origin` is neither listed nor the router's own is refused with
 *   403 before auth and before its body is read: a page elsewhere cannot drive the router from a browser,
 *   keys or not.
 * - "Own" is the origin cards name (publicUrl, or the forwarded host with trustProxy) or the request's Host.
 *   With a loopback bind a Host counts only when it is a loopback name: a page on another name that reaches
 *   a loopback router is DNS rebinding (or a proxy that should set trustProxy or publicUrl).
 */
export function originGuard(options: OriginGuardOptions) {
  const listed = new Set(options.origins.map((o) => normalizeOrigin(o)).filter((o): o is string => o !== undefined));
  const loopbackBind = isLoopback(options.bindHost);
  return (req: Request, res: Response, next: NextFunction): void => {
    const raw = req.get("origin");
    const origin = raw === undefined ? undefined : normalizeOrigin(raw);
    const isListed = origin !== undefined && listed.has(origin);
    if (listed.size > 0) res.vary("Origin");
    if (isListed) res.set({ "Access-Control-Allow-Origin": origin, "Access-Control-Expose-Headers": CORS_ALLOW.exposeHeaders });
    if (req.method === "OPTIONS" && CORS_PATH.test(req.path)) {
      if (isListed) {
        res.set({
          "Access-Control-Allow-Methods": CORS_ALLOW.methods,
          "Access-Control-Allow-Headers": CORS_ALLOW.headers,
          "Access-Control-Max-Age": CORS_ALLOW.maxAge,
        });
      }
      return void res.status(204).end();
    }
    if (raw === undefined || (SAFE_METHODS.has(req.method) && !options.allMethods) || isListed || (origin !== undefined && isOwn(req, origin, loopbackBind))) {
      return next();
    }
    refuse(req, res, "forbidden-origin", `origin ${JSON.stringify(raw)} is not allowed (see cors.origins)`);
  };
}

function isOwn(req: Request, origin: string, loopbackBind: boolean): boolean {
  return isOwnOrigin(req, origin, policyOf(req), loopbackBind);
}
