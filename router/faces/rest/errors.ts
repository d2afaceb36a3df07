import { TaskError, type TaskErrorReason } from "../../core/errors.js";
import { errorDetails } from "../../dialects/index.js";

/**
 * A2A v1.0 HTTP+JSON errors: a google.rpc.Status body `{error: {code, status, message, details}}` whose
 * ErrorInfo detail carries the A2A reason (spec 11.6), which @a2a-js/sdk's REST client turns back into its
 * typed errors. The HTTP status and google.rpc code of each reason are this face's one table; the ErrorInfo
 * reason names are v1.0's wire vocabulary, shared with JSON-RPC v1.0 (router/dialects/v10/error-info.ts).
 */
export interface RestError {
  http: number;
  /** The google.rpc.Code name. */
  status: string;
}

/** Every reason's HTTP status (spec 5.4 for A2A's errors). */
export const REASON_ERRORS: Record<TaskErrorReason, RestError> = {
  "task-not-found": { http: 404, status: "NOT_FOUND" },
  "task-not-cancelable": { http: 400, status: "FAILED_PRECONDITION" },
  "unknown-agent": { http: 400, status: "INVALID_ARGUMENT" },
  "agent-unavailable": { http: 503, status: "UNAVAILABLE" },
  "invalid-params": { http: 400, status: "INVALID_ARGUMENT" },
  "unsupported-operation": { http: 400, status: "FAILED_PRECONDITION" },
  "push-not-supported": { http: 400, status: "FAILED_PRECONDITION" },
  "version-not-supported": { http: 400, status: "FAILED_PRECONDITION" },
  "invalid-agent-response": { http: 500, status: "INTERNAL" },
  "method-not-found": { http: 404, status: "NOT_FOUND" },
  "extended-card-not-configured": { http: 400, status: "FAILED_PRECONDITION" },
  "content-type-not-supported": { http: 400, status: "INVALID_ARGUMENT" },
  unauthenticated: { http: 401, status: "UNAUTHENTICATED" },
  "shutting-down": { http: 503, status: "UNAVAILABLE" },
  "idempotency-conflict": { http: 409, status: "ALREADY_EXISTS" },
  internal: { http: 500, status: "INTERNAL" },
};

/** Errors of the face itself, before any operation is chosen. */
export const FACE_ERRORS = {
  /** A method and path the HTTP+JSON binding does not define. */
  noRoute: { http: 404, status: "NOT_FOUND" },
} as const satisfies Record<string, RestError>;

/** The HTTP status and google.rpc.Status body of anything a REST handler threw; anything not a TaskError is a generic 500. */
export function restError(err: unknown): { http: number; body: Record<string, unknown> } {
  if (!(err instanceof TaskError)) return statusBody(REASON_ERRORS.internal, "Internal error: the router could not complete the request", []);
  return statusBody(REASON_ERRORS[err.reason], err.message, errorDetails(err.reason, err.data));
}

/** A google.rpc.Status answer of the face's own. */
export function faceError(error: RestError, message: string): { http: number; body: Record<string, unknown> } {
  return statusBody(error, message, []);
}

function statusBody(error: RestError, message: string, details: unknown[]): { http: number; body: Record<string, unknown> } {
  return { http: error.http, body: { error: { code: error.http, status: error.status, message, details } } };
}
