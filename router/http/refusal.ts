import type { Request, Response } from "express";
import { failure } from "../rpc/envelope.js";
import { RpcError } from "../rpc/errors.js";

/** Why the HTTP edge refuses a request, before any face has read it. */
export type Refusal = "unauthorized" | "forbidden-origin" | "too-many-auth-failures" | "overloaded" | "too-large" | "bad-request" | "not-found" | "internal";

/** Each refusal's HTTP status and the `type`/`code` an OpenAI client expects on the /v1 face. */
const REFUSALS: Record<Refusal, { status: number; type: string; code: string }> = {
  unauthorized: { status: 401, type: "invalid_request_error", code: "invalid_api_key" },
  "forbidden-origin": { status: 403, type: "invalid_request_error", code: "origin_not_allowed" },
  "too-many-auth-failures": { status: 429, type: "rate_limit_error", code: "too_many_auth_failures" },
  overloaded: { status: 503, type: "server_error", code: "overloaded" },
  "too-large": { status: 413, type: "invalid_request_error", code: "body_too_large" },
  "bad-request": { status: 400, type: "invalid_request_error", code: "bad_request" },
  "not-found": { status: 404, type: "invalid_request_error", code: "not_found" },
  internal: { status: 500, type: "server_error", code: "internal_error" },
};

/**
 * Answers a refusal in the shape of the face the path belongs to: OpenAI's `{error: {message, type, code}}`
 * under /v1, a JSON-RPC error (`-32600`, or `-32603` for the router's own failure) elsewhere. Either way the
 * body is JSON with an `error` member. `status` overrides the refusal's own (415 for an encoding, ...).
 */
export function refuse(req: Request, res: Response, refusal: Refusal, message: string, status?: number): void {
  const r = REFUSALS[refusal];
  res.status(status ?? r.status);
  if (req.path.startsWith("/v1/")) return void res.json({ error: { message, type: r.type, code: r.code } });
  const error = refusal === "internal" ? RpcError.internal(message) : RpcError.invalidRequest(message);
  res.json(failure(null, error.toJSON()));
}
