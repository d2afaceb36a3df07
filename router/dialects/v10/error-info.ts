import type { TaskErrorReason } from "../../core/errors.js";

/**
 * A2A v1.0's error details (spec 3.3.2, 9.5, 11.6): the ProtoJSON `Any` objects a v1.0 error carries, in
 * JSON-RPC's `error.data` array and in HTTP+JSON's `error.details` array alike. A2A-specific errors carry a
 * `google.rpc.ErrorInfo` whose `reason` names the A2A error type; this is v1.0's wire vocabulary, so it lives
 * with the v1.0 dialect, and both faces that speak v1.0 (router/rpc, router/faces/rest) read it from here.
 */

export const A2A_ERROR_DOMAIN = "a2a-protocol.org";
export const ERROR_INFO_TYPE = "type.googleapis.com/google.rpc.ErrorInfo";
/** Facts of an error A2A gives no ErrorInfo reason, kept whole as a ProtoJSON `Any` of a Struct. */
export const STRUCT_TYPE = "type.googleapis.com/google.protobuf.Struct";

/**
 * The ErrorInfo `reason` of each of the router's reasons (A2A's error type in UPPER_SNAKE_CASE without
 * "Error", spec 5.4); undefined where A2A names none. `INVALID_PARAMS` is not one of A2A's nine: the REST face
 * has always named invalid params so (@a2a-js/sdk's REST client reads it), and JSON-RPC v1.0 says the same.
 */
export const A2A_REASON_NAMES: Record<TaskErrorReason, string | undefined> = {
  "task-not-found": "TASK_NOT_FOUND",
  "task-not-cancelable": "TASK_NOT_CANCELABLE",
  "unknown-agent": "INVALID_PARAMS",
  "agent-unavailable": undefined,
  "invalid-params": "INVALID_PARAMS",
  "unsupported-operation": "UNSUPPORTED_OPERATION",
  "push-not-supported": "PUSH_NOTIFICATION_NOT_SUPPORTED",
  "version-not-supported": "VERSION_NOT_SUPPORTED",
  "invalid-agent-response": "INVALID_AGENT_RESPONSE",
  "method-not-found": undefined,
  "extended-card-not-configured": "EXTENDED_AGENT_CARD_NOT_CONFIGURED",
  "content-type-not-supported": "CONTENT_TYPE_NOT_SUPPORTED",
  unauthenticated: undefined,
  "shutting-down": undefined,
  // The JSON-RPC code is -32602 (CONTRACT 14): the ErrorInfo says so too.
  "idempotency-conflict": "INVALID_PARAMS",
  internal: undefined,
};

/** A `google.rpc.ErrorInfo` in ProtoJSON: metadata is a map of strings. */
export interface ErrorInfo {
  "@type": typeof ERROR_INFO_TYPE;
  reason: string;
  domain: typeof A2A_ERROR_DOMAIN;
  metadata?: Record<string, string>;
}

/**
 * The v1.0 details of an error: an ErrorInfo (its facts as metadata) when A2A names the reason; otherwise the
 * facts, if any, as a Struct, so nothing a v0.3 client would have read is lost; otherwise none.
 */
export function errorDetails(reason: TaskErrorReason | undefined, data: unknown): unknown[] {
  const facts = isFacts(data) ? data : undefined;
  const name = reason && A2A_REASON_NAMES[reason];
  if (name) {
    const metadata = facts && Object.keys(facts).length > 0 ? stringValues(facts) : undefined;
    const info: ErrorInfo = { "@type": ERROR_INFO_TYPE, reason: name, domain: A2A_ERROR_DOMAIN, ...(metadata && { metadata }) };
    return [info];
  }
  return facts ? [{ "@type": STRUCT_TYPE, value: facts }] : [];
}

function isFacts(data: unknown): data is Record<string, unknown> {
  return !!data && typeof data === "object" && !Array.isArray(data);
}

/** ErrorInfo metadata is a map of strings: other values as their JSON. */
function stringValues(data: Record<string, unknown>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(data)) out[k] = typeof v === "string" ? v : JSON.stringify(v);
  return out;
}
