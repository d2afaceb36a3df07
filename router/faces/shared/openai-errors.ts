/**
 * OpenAI's error shape, one table for the two faces that speak it (Chat Completions and Responses, both under
 * /v1): every task-service reason, and every way a turn can fail, as an HTTP status plus OpenAI's error `type`
 * and `code`. Bodies are OpenAI's shape `{error: {message, type, param, code}}`.
 */
import type { Response } from "express";
import { TaskError, type TaskErrorReason } from "../../core/errors.js";

/** An OpenAI error as the face answers it. */
export interface OpenAiError {
  status: number;
  type: "invalid_request_error" | "authentication_error" | "permission_error" | "not_found_error" | "rate_limit_error" | "server_error";
  code: string;
}

/** Every TaskError reason (tests/chat/errors.test.ts keeps it complete and docs/chat.md in step). */
export const REASON_ERRORS: Record<TaskErrorReason, OpenAiError> = {
  "task-not-found": { status: 404, type: "not_found_error", code: "task_not_found" },
  "task-not-cancelable": { status: 409, type: "invalid_request_error", code: "task_not_cancelable" },
  "unknown-agent": { status: 404, type: "invalid_request_error", code: "model_not_found" },
  "agent-unavailable": { status: 503, type: "server_error", code: "agent_unavailable" },
  "invalid-params": { status: 400, type: "invalid_request_error", code: "invalid_params" },
  "unsupported-operation": { status: 400, type: "invalid_request_error", code: "unsupported_operation" },
  "push-not-supported": { status: 400, type: "invalid_request_error", code: "push_not_supported" },
  "version-not-supported": { status: 400, type: "invalid_request_error", code: "version_not_supported" },
  "invalid-agent-response": { status: 502, type: "server_error", code: "invalid_agent_response" },
  "method-not-found": { status: 404, type: "invalid_request_error", code: "not_found" },
  "extended-card-not-configured": { status: 400, type: "invalid_request_error", code: "extended_card_not_configured" },
  "content-type-not-supported": { status: 415, type: "invalid_request_error", code: "content_type_not_supported" },
  unauthenticated: { status: 401, type: "authentication_error", code: "invalid_api_key" },
  "shutting-down": { status: 503, type: "server_error", code: "shutting_down" },
  "idempotency-conflict": { status: 409, type: "invalid_request_error", code: "idempotency_conflict" },
  internal: { status: 500, type: "server_error", code: "internal_error" },
};

/** Turns that end without an answer: a non-stream reply's status, a stream's error chunk. */
export const TURN_ERRORS: Record<"failed" | "rejected" | "canceled", OpenAiError> = {
  failed: { status: 502, type: "server_error", code: "agent_failed" },
  rejected: { status: 422, type: "invalid_request_error", code: "agent_rejected" },
  canceled: { status: 409, type: "invalid_request_error", code: "canceled" },
};

/** Errors of the face itself (a request OpenAI would refuse too). */
export const REQUEST_ERRORS = {
  badRequest: { status: 400, type: "invalid_request_error", code: "invalid_request" },
  unauthorized: { status: 401, type: "authentication_error", code: "invalid_api_key" },
  tooLarge: { status: 413, type: "invalid_request_error", code: "request_too_large" },
  notFound: { status: 404, type: "invalid_request_error", code: "model_not_found" },
  /** A response id (Responses API) that names no response this caller may see. */
  responseNotFound: { status: 404, type: "invalid_request_error", code: "response_not_found" },
  forbidden: { status: 403, type: "permission_error", code: "forbidden" },
  tooMany: { status: 429, type: "rate_limit_error", code: "rate_limit_exceeded" },
  unavailable: { status: 503, type: "server_error", code: "unavailable" },
} as const satisfies Record<string, OpenAiError>;

/** The error of a status written by shared middleware (keys, origins, limits), by status. */
const MIDDLEWARE_ERRORS: Record<number, OpenAiError> = {
  401: REQUEST_ERRORS.unauthorized,
  403: REQUEST_ERRORS.forbidden,
  413: REQUEST_ERRORS.tooLarge,
  429: REQUEST_ERRORS.tooMany,
  503: REQUEST_ERRORS.unavailable,
};

/** The body of an error. */
export function errorBody(err: OpenAiError, message: string, param: string | null = null) {
  return { error: { message, type: err.type, param, code: err.code } };
}

/** The OpenAI error of anything thrown: a TaskError by its reason, anything else a generic 500 (no internals). */
export function fromThrown(err: unknown): { err: OpenAiError; message: string; param: string | null } {
  if (err instanceof TaskError) return { err: REASON_ERRORS[err.reason], message: err.message, param: err.field ?? null };
  return { err: REASON_ERRORS.internal, message: "Internal error: the router could not complete the request", param: null };
}

export function sendError(res: Response, err: OpenAiError, message: string, param: string | null = null): void {
  res.status(err.status).json(errorBody(err, message, param));
}

/**
 * Rewrites error bodies written by shared middleware (the API-key guard, the body-size limit) into OpenAI's
 * shape, so /v1 clients see one error format whoever refused the request.
 */
export function openAiErrorBodies(_req: unknown, res: Response, next: () => void): void {
  const json = res.json.bind(res);
  res.json = (body: unknown) => {
    if (res.statusCode >= 400 && !isOpenAiError(body)) {
      const message = messageOf(body) ?? "request refused";
      const err = MIDDLEWARE_ERRORS[res.statusCode] ?? {
        ...(res.statusCode >= 500 ? REASON_ERRORS.internal : REQUEST_ERRORS.badRequest),
        status: res.statusCode,
      };
      return json(errorBody(err, message));
    }
    return json(body);
  };
  next();
}

function isOpenAiError(body: unknown): boolean {
  const error = (body as { error?: unknown } | null)?.error;
  return typeof error === "object" && error !== null && "type" in error;
}

function messageOf(body: unknown): string | undefined {
  const error = (body as { error?: unknown } | null)?.error;
  if (typeof error === "string") return error;
  const message = (error as { message?: unknown } | undefined)?.message;
  return typeof message === "string" ? message : undefined;
}
