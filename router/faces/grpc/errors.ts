import { Metadata, status as Status, type StatusObject } from "@grpc/grpc-js";
import { TaskError, type TaskErrorReason } from "../../core/errors.js";
import { errorDetails } from "../../dialects/index.js";
import { encodeJson, messageType } from "../../dialects/v10/grpc/proto.js";

/**
 * A2A v1.0 gRPC errors (spec 10.6): a status code and a `google.rpc.Status` in the `grpc-status-details-bin`
 * trailer whose ErrorInfo detail carries the A2A reason (domain a2a-protocol.org), which @a2a-js/sdk's gRPC
 * client turns back into its typed errors. The code of each reason is this face's one table; the ErrorInfo
 * reason names are v1.0's wire vocabulary, shared with JSON-RPC v1.0 and REST (router/dialects/v10/error-info.ts).
 */

/** The trailer gRPC's richer error model carries a binary google.rpc.Status in. */
export const STATUS_DETAILS_TRAILER = "grpc-status-details-bin";

/** Every reason's gRPC status code (spec 5.4 for A2A's errors). */
export const REASON_CODES: Record<TaskErrorReason, Status> = {
  "task-not-found": Status.NOT_FOUND,
  "task-not-cancelable": Status.FAILED_PRECONDITION,
  // The request's tenant (or the message's agent) names no agent: the resource is not there.
  "unknown-agent": Status.NOT_FOUND,
  "agent-unavailable": Status.UNAVAILABLE,
  "invalid-params": Status.INVALID_ARGUMENT,
  "unsupported-operation": Status.FAILED_PRECONDITION,
  "push-not-supported": Status.FAILED_PRECONDITION,
  "version-not-supported": Status.FAILED_PRECONDITION,
  "invalid-agent-response": Status.INTERNAL,
  "method-not-found": Status.UNIMPLEMENTED,
  "extended-card-not-configured": Status.FAILED_PRECONDITION,
  "content-type-not-supported": Status.INVALID_ARGUMENT,
  unauthenticated: Status.UNAUTHENTICATED,
  // The same Idempotency-Key with another request (CONTRACT 14), as REST's 409 ALREADY_EXISTS.
  "idempotency-conflict": Status.ALREADY_EXISTS,
  "shutting-down": Status.UNAVAILABLE,
  internal: Status.INTERNAL,
};

/** Errors of the face itself, before any operation runs. */
export const FACE_CODES = {
  /** Too many failed authentications from the client's address (CONTRACT 12's 429). */
  tooManyAuthFailures: Status.RESOURCE_EXHAUSTED,
} as const satisfies Record<string, Status>;

const BAD_REQUEST_TYPE = "type.googleapis.com/google.rpc.BadRequest";

/**
 * The gRPC status of anything a call threw: a TaskError's code from the table, its message, and its details
 * (ErrorInfo, plus a BadRequest naming the field of an invalid param); anything else is a generic INTERNAL.
 */
export function grpcStatus(err: unknown): StatusObject {
  if (!(err instanceof TaskError)) return faceStatus(Status.INTERNAL, "Internal error: the router could not complete the request");
  const details = errorDetails(err.reason, err.data);
  const field = err.field;
  if (err.reason === "invalid-params" && field) details.push({ "@type": BAD_REQUEST_TYPE, fieldViolations: [{ field, description: err.message }] });
  return withDetails(REASON_CODES[err.reason], err.message, details);
}

/** A status of the face's own, with no A2A reason. */
export function faceStatus(code: Status, message: string): StatusObject {
  return withDetails(code, message, []);
}

function withDetails(code: Status, message: string, details: unknown[]): StatusObject {
  const metadata = new Metadata();
  metadata.set(STATUS_DETAILS_TRAILER, Buffer.from(encodeJson(messageType("google.rpc.Status"), { code, message, details })));
  return { code, details: message, metadata };
}
