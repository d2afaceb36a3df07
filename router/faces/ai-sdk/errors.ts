/**
 * The AI SDK face's one error table: each task-service reason as the HTTP status of a refused request.
 * Bodies are `{error: {message, reason, data?}}`; `useChat` shows the response text as its error.
 * A turn that fails after its stream opened is an `error` part instead (see ui-chunks.ts).
 */
import type { Response } from "express";
import { TaskError, type TaskErrorReason } from "../../core/errors.js";

export const REASON_STATUS: Record<TaskErrorReason, number> = {
  "task-not-found": 404,
  "task-not-cancelable": 409,
  "unknown-agent": 404,
  "agent-unavailable": 503,
  "invalid-params": 400,
  "unsupported-operation": 400,
  "push-not-supported": 400,
  "version-not-supported": 400,
  "invalid-agent-response": 502,
  "method-not-found": 404,
  "extended-card-not-configured": 400,
  "content-type-not-supported": 415,
  unauthenticated: 401,
  "shutting-down": 503,
  "idempotency-conflict": 409,
  internal: 500,
};

/** Answers a refused request: a TaskError by its reason, a bad request as 400, anything else a bare 500. */
export function sendRefusal(res: Response, err: unknown): void {
  if (err instanceof TaskError) {
    // The key names another request: sending this one again cannot succeed (CONTRACT 14).
    if (err.reason === "idempotency-conflict") res.set("x-should-retry", "false");
    res.status(REASON_STATUS[err.reason]).json({ error: { message: err.message, reason: err.reason, ...(err.data && { data: err.data }) } });
    return;
  }
  res.status(500).json({ error: { message: "Internal error: the router could not complete the request", reason: "internal" } });
}

/** A request this face cannot read. */
export function sendBadRequest(res: Response, message: string, field: string): void {
  res.status(400).json({ error: { message: `Invalid request: ${message}`, reason: "invalid-params", data: { field } } });
}
