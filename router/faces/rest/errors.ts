import { toRpcError, RPC_ERROR_CODES } from "../../rpc/errors.js";

/**
 * A2A v1.0 HTTP+JSON errors: a google.rpc.Status body `{error: {code, status, message, details}}` whose
 * ErrorInfo detail carries the A2A reason (spec 11.6), which @a2a-js/sdk's REST client turns back into its
 * typed errors. The A2A error codes are one list across bindings (spec 5.4), so the REST face reads the
 * code every failure already has and maps it here, in its one table.
 */
interface RestError {
  http: number;
  status: string;
  /** The A2A ErrorInfo reason; absent for errors the spec gives none. */
  reason?: string;
}

const C = RPC_ERROR_CODES;
const BY_CODE: Record<number, RestError> = {
  [C.PARSE_ERROR]: { http: 400, status: "INVALID_ARGUMENT", reason: "INVALID_PARAMS" },
  [C.INVALID_REQUEST]: { http: 400, status: "INVALID_ARGUMENT", reason: "INVALID_PARAMS" },
  [C.METHOD_NOT_FOUND]: { http: 404, status: "NOT_FOUND" },
  [C.INVALID_PARAMS]: { http: 400, status: "INVALID_ARGUMENT", reason: "INVALID_PARAMS" },
  [C.INTERNAL_ERROR]: { http: 500, status: "INTERNAL" },
  [C.TASK_NOT_FOUND]: { http: 404, status: "NOT_FOUND", reason: "TASK_NOT_FOUND" },
  [C.TASK_NOT_CANCELABLE]: { http: 400, status: "FAILED_PRECONDITION", reason: "TASK_NOT_CANCELABLE" },
  [C.PUSH_NOT_SUPPORTED]: { http: 400, status: "FAILED_PRECONDITION", reason: "PUSH_NOTIFICATION_NOT_SUPPORTED" },
  [C.UNSUPPORTED_OPERATION]: { http: 400, status: "FAILED_PRECONDITION", reason: "UNSUPPORTED_OPERATION" },
  [C.CONTENT_TYPE_NOT_SUPPORTED]: { http: 400, status: "INVALID_ARGUMENT", reason: "CONTENT_TYPE_NOT_SUPPORTED" },
  [C.INVALID_AGENT_RESPONSE]: { http: 500, status: "INTERNAL", reason: "INVALID_AGENT_RESPONSE" },
  [C.EXTENDED_CARD_NOT_CONFIGURED]: { http: 400, status: "FAILED_PRECONDITION", reason: "EXTENDED_AGENT_CARD_NOT_CONFIGURED" },
  [C.VERSION_NOT_SUPPORTED]: { http: 400, status: "FAILED_PRECONDITION", reason: "VERSION_NOT_SUPPORTED" },
  [C.AGENT_UNAVAILABLE]: { http: 503, status: "UNAVAILABLE" },
};

/** The HTTP status and google.rpc.Status body of anything a REST handler threw. */
export function restError(err: unknown): { http: number; body: Record<string, unknown> } {
  const rpc = toRpcError(err);
  const mapped = BY_CODE[rpc.code] ?? BY_CODE[C.INTERNAL_ERROR]!;
  const metadata = rpc.data && typeof rpc.data === "object" ? stringValues(rpc.data as Record<string, unknown>) : undefined;
  const details = mapped.reason
    ? [{ "@type": "type.googleapis.com/google.rpc.ErrorInfo", reason: mapped.reason, domain: "a2a-protocol.org", ...(metadata && { metadata }) }]
    : [];
  return { http: mapped.http, body: { error: { code: mapped.http, status: mapped.status, message: rpc.message, details } } };
}

/** ErrorInfo metadata is a map of strings. */
function stringValues(data: Record<string, unknown>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(data)) out[k] = typeof v === "string" ? v : JSON.stringify(v);
  return out;
}
