import type { Request, Response } from "express";
import { errorBody, REASON_ERRORS, REQUEST_ERRORS, type OpenAiError } from "../faces/openai/errors.js";
import { failure } from "../jsonrpc/envelope.js";
import { TaskError } from "../core/errors.js";
import { RpcError, rpcErrorBody } from "../rpc/errors.js";

/** Why the HTTP edge refuses a request, before any face has read it. */
export type Refusal = "unauthorized" | "forbidden-origin" | "too-many-auth-failures" | "overloaded" | "too-large" | "bad-request" | "not-found" | "internal";

/** Each refusal's HTTP status, and its error on the OpenAI face (that face's own table, so /v1 has one format). */
const REFUSALS: Record<Refusal, { status: number; openAi: OpenAiError }> = {
  unauthorized: { status: 401, openAi: REQUEST_ERRORS.unauthorized },
  "forbidden-origin": { status: 403, openAi: REQUEST_ERRORS.forbidden },
  "too-many-auth-failures": { status: 429, openAi: REQUEST_ERRORS.tooMany },
  overloaded: { status: 503, openAi: REQUEST_ERRORS.unavailable },
  "too-large": { status: 413, openAi: REQUEST_ERRORS.tooLarge },
  "bad-request": { status: 400, openAi: REQUEST_ERRORS.badRequest },
  "not-found": { status: 404, openAi: { ...REQUEST_ERRORS.notFound, code: "not_found" } },
  internal: { status: 500, openAi: REASON_ERRORS.internal },
};

/**
 * Answers a refusal in the shape of the face the path belongs to: OpenAI's `{error: {message, type, param,
 * code}}` under /v1 (the edge runs before that face's own error rewriting), a JSON-RPC error (`-32600`, or
 * `-32603` for the router's own failure) elsewhere. Either way the body is JSON with an `error` member.
 * `status` overrides the refusal's own (415 for an encoding, ...).
 */
export function refuse(req: Request, res: Response, refusal: Refusal, message: string, status?: number): void {
  const r = REFUSALS[refusal];
  res.status(status ?? r.status);
  if (req.path.startsWith("/v1/")) return void res.json(errorBody(r.openAi, message));
  // The edge refuses the request itself (JSON-RPC's invalid request), or failed itself (an internal error).
  const error = refusal === "internal" ? TaskError.internal(message) : RpcError.invalidRequest(message);
  res.json(failure(null, rpcErrorBody(error, undefined)));
}
