import { createHash, timingSafeEqual } from "node:crypto";
import type { NextFunction, Request, Response } from "express";
import type { ApiKeyConfig } from "../config/config.js";
import type { Caller } from "../service/scope.js";
import type { AuthFailureLimiter } from "./auth-limiter.js";
import { keyOf } from "../net/credentials.js";
import { clientAddress } from "./origin.js";
import { refuse } from "./refusal.js";

export type { Caller };

interface StoredKey {
  hash: Buffer;
  caller: Caller;
}

const sha256 = (v: string): Buffer => createHash("sha256").update(v, "utf8").digest();

/**
 * The configured keys, kept as SHA-256 digests only. Presented keys are hashed and compared with every
 * stored digest in constant time (no early exit), so neither the keys' contents nor which one matched leak
 * through timing; hashing first also makes lengths equal, which timingSafeEqual requires.
 */
export class KeyRing {
  #keys: StoredKey[];

  constructor(keys: readonly ApiKeyConfig[]) {
    this.#keys = keys.map((entry) => {
      const { key, name, agents } = typeof entry === "string" ? { key: entry } : entry;
      const hash = sha256(key);
      const principal = name ?? `key-${hash.toString("hex").slice(0, 12)}`;
      return { hash, caller: Object.freeze({ principal, ...(agents && { agents: Object.freeze([...agents]) }) }) };
    });
  }

  /** True when keys are configured (requests then need one). */
  get enabled(): boolean {
    return this.#keys.length > 0;
  }

  /** The caller a presented key stands for, or undefined when it matches no configured key. */
  identify(presented: string): Caller | undefined {
    const hash = sha256(presented);
    let found: Caller | undefined;
    for (const k of this.#keys) if (timingSafeEqual(k.hash, hash) && !found) found = k.caller;
    return found;
  }
}

/** The key a request presents: `Authorization: Bearer <key>` or `X-API-Key: <key>`. */
export function presentedKey(req: Request): string | undefined {
  return keyOf(req.get("authorization"), req.get("x-api-key"));
}

/** The caller the auth middleware attached to this request; undefined when no keys are configured. */
export function callerOf(res: Response): Caller | undefined {
  return (res.locals as { caller?: Caller }).caller;
}

export interface ApiKeyGuardOptions {
  /** Counts failures per client address and answers 429 past the limit. */
  limiter?: AuthFailureLimiter;
  /** Take the client address from X-Forwarded-For (the last hop, appended by the proxy). */
  trustProxy?: boolean;
}

/**
 * Client API keys. With no keys configured every request passes (loopback dev mode; a non-loopback bind then
 * needs --allow-open). Otherwise a valid key is required (401), the caller is attached to `res.locals.caller`
 * (read it with `callerOf`), and a client address with too many failures in the last minute gets 429 with
 * `Retry-After`, even with a valid key, until the window has passed: a guessing client learns nothing more.
 */
export function apiKeyGuard(keys: readonly ApiKeyConfig[] | KeyRing, options: ApiKeyGuardOptions = {}) {
  const ring = keys instanceof KeyRing ? keys : new KeyRing(keys);
  const { limiter } = options;
  return (req: Request, res: Response, next: NextFunction): void => {
    if (!ring.enabled) return next();
    const address = clientAddress(req, options.trustProxy ?? false);
    const wait = limiter?.retryAfterSeconds(address);
    if (wait) {
      res.set("Retry-After", String(wait));
      return refuse(req, res, "too-many-auth-failures", "too many failed authentications; retry later");
    }
    const key = presentedKey(req);
    const caller = key === undefined ? undefined : ring.identify(key);
    if (caller) {
      res.locals.caller = caller;
      return next();
    }
    limiter?.fail(address);
    const reason = key ? "invalid API key" : "missing API key (send Authorization: Bearer <key> or X-API-Key)";
    res.set("WWW-Authenticate", 'Bearer realm="a2a-router"');
    refuse(req, res, "unauthorized", reason);
  };
}
