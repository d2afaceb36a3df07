import type { NextFunction, Request, Response } from "express";
import { failure } from "../rpc/envelope.js";
import { RpcError } from "../rpc/errors.js";

/**
 * Client API keys: `Authorization: Bearer <key>` or `X-API-Key: <key>`. With no keys configured every
 * request passes (loopback dev mode; a non-loopback bind then needs --allow-open).
 */
export function apiKeyGuard(keys: readonly string[]) {
  const allowed = new Set(keys);
  return (req: Request, res: Response, next: NextFunction): void => {
    if (allowed.size === 0) return next();
    const auth = req.get("authorization");
    const key = auth?.toLowerCase().startsWith("bearer ") ? auth.slice(7).trim() : req.get("x-api-key");
    if (key && allowed.has(key)) return next();
    const reason = key ? "invalid API key" : "missing API key (send Authorization: Bearer <key> or X-API-Key)";
    res.status(401).json(failure(null, RpcError.invalidRequest(reason).toJSON()));
  };
}
