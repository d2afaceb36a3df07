import type { Request, Response } from "express";
import { errorBody, REASON_ERRORS, REQUEST_ERRORS, type OpenAiError } from "../faces/shared/openai-errors.js";
import { failure } from "../jsonrpc/envelope.js";
import { TaskError } from "../core/errors.js";
import { RpcError, rpcErrorBody } from "../rpc/errors.js";

/** Why the HTTP edge refuses a request, before any face has read it. */
export type Refusal = "unauthorized" | "forbidden-origin" | "too-many-auth-failures" | "overloaded" | "too-large" | "bad-request" | "not-found" | "internal";

/**
 * Each refusal's HTTP status, its error on the OpenAI face (that face's own table, so /v1 has one format), and
 * its `reason` on the AI SDK face (`401` is that face's `unauthenticated`, as a TaskError's would be).
 */
const REFUSALS: Record<Refusal, { status: number; openAi: OpenAiError; aiSdk: string }> = {
  unauthorized: { status: 401, openAi: REQUEST_ERRORS.unauthorized, aiSdk: "unauthenticated" },
  "forbidden-origin": { status: 403, openAi: REQUEST_ERRORS.forbidden, aiSdk: "forbidden-origin" },
  "too-many-auth-failures": { status: 429, openAi: REQUEST_ERRORS.tooMany, aiSdk: "too-many-auth-failures" },
  overloaded: { status: 503, openAi: REQUEST_ERRORS.unavailable, aiSdk: "overloaded" },
  "too-large": { status: 413, openAi: REQUEST_ERRORS.tooLarge, aiSdk: "too-large" },
  "bad-request": { status: 400, openAi: REQUEST_ERRORS.badRequest, aiSdk: "invalid-params" },
  "not-found": { status: 404, openAi: { ...REQUEST_ERRORS.notFound, code: "not_found" }, aiSdk: "not-found" },
  internal: { status: 500, openAi: REASON_ERRORS.internal, aiSdk: "internal" },
};

/**
 * Answers a refusal in the shape of the face the path belongs to: OpenAI's `{error: {message, type, param,
 * code}}` under /v1 (the edge runs before that face's own error rewriting), the AI SDK face's `{error:
 * {message, reason}}` under /api (what `useChat` shows), a JSON-RPC error (`-32600`, or
 * `-32603` for the router's own failure) elsewhere. Either way the body is JSON with an `error` member.
 * `status` overrides the refusal's own (415 for an encoding, ...).
 */
export function refuse(req: Request, res: Response, refusal: Refusal, message: string, status?: number): void {
  const r = REFUSALS[refusal];
  res.status(status ?? r.status);
  if (isOpenAiPath(req.path)) return void res.json(errorBody(r.openAi, message));
  // The edge refuses the request itself (JSON-RPC's invalid request), or failed itself (an internal error).
  const error = refusal === "internal" ? TaskError.internal(message) : RpcError.invalidRequest(message);
  if (req.path.startsWith("/api/")) return void res.json({ error: { message: refusal === "internal" ? error.message : message, reason: r.aiSdk } });
  res.json(failure(null, rpcErrorBody(error, undefined)));
}

/** `/v1` and everything under it: the OpenAI face's paths (`GET /v1` too, as OpenAI's own base URL answers). */
export function isOpenAiPath(path: string): boolean {
  return path === "/v1" || path === "/v1/" || path.startsWith("/v1/");
}
