import { TaskError, type TaskErrorReason } from "../core/errors.js";
import type { DialectName } from "../core/model.js";
import { bindMethod, errorDetails, requestedA2AVersion } from "../dialects/index.js";
import { JSONRPC_CODES, type RpcErrorBody } from "../jsonrpc/envelope.js";

export type { RpcErrorBody };

/** Every JSON-RPC error code the router uses: JSON-RPC 2.0's own and A2A's (spec 5.4). No code literal appears anywhere else. */
export const RPC_ERROR_CODES = {
  ...JSONRPC_CODES,
  TASK_NOT_FOUND: -32001,
  TASK_NOT_CANCELABLE: -32002,
  PUSH_NOT_SUPPORTED: -32003,
  UNSUPPORTED_OPERATION: -32004,
  CONTENT_TYPE_NOT_SUPPORTED: -32005,
  INVALID_AGENT_RESPONSE: -32006,
  EXTENDED_CARD_NOT_CONFIGURED: -32007,
  VERSION_NOT_SUPPORTED: -32009,
  AGENT_UNAVAILABLE: -32050,
} as const;

export type RpcErrorCode = (typeof RPC_ERROR_CODES)[keyof typeof RPC_ERROR_CODES];

/**
 * An error of JSON-RPC 2.0 itself, raised where a JSON-RPC speaker reads the envelope: a body that is not
 * JSON, a request that is not a request. Every A2A meaning is a TaskError (router/core/errors.ts) and becomes
 * a code only in REASON_CODES. `toJSON()` is the wire `error` member.
 */
export class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
    this.name = "RpcError";
  }

  toJSON(): RpcErrorBody {
    return this.data === undefined ? { code: this.code, message: this.message } : { code: this.code, message: this.message, data: this.data };
  }

  static parse(detail: string): RpcError {
    return new RpcError(RPC_ERROR_CODES.PARSE_ERROR, `Parse error: ${detail}`);
  }
  static invalidRequest(detail: string, field?: string): RpcError {
    return new RpcError(RPC_ERROR_CODES.INVALID_REQUEST, `Invalid request: ${detail}`, field ? { field } : undefined);
  }
  // JSON-RPC 2.0's own method, params and internal errors, for the hub's frames (it speaks JSON-RPC to its
  // agents) until its wire module has its own; the A2A client face raises TaskErrors for these meanings.
  static methodNotFound(method: string): RpcError {
    return new RpcError(RPC_ERROR_CODES.METHOD_NOT_FOUND, `Method not found: ${method}`, { method });
  }
  static invalidParams(detail: string, field: string, extra?: Record<string, unknown>): RpcError {
    return new RpcError(RPC_ERROR_CODES.INVALID_PARAMS, `Invalid params: ${detail}`, { field, ...extra });
  }
  static internal(detail: string): RpcError {
    return new RpcError(RPC_ERROR_CODES.INTERNAL_ERROR, `Internal error: ${detail}`);
  }
}

/** The JSON-RPC code of each reason: the one place a meaning becomes a code. */
export const REASON_CODES: Record<TaskErrorReason, RpcErrorCode> = {
  "task-not-found": RPC_ERROR_CODES.TASK_NOT_FOUND,
  "task-not-cancelable": RPC_ERROR_CODES.TASK_NOT_CANCELABLE,
  "unknown-agent": RPC_ERROR_CODES.INVALID_PARAMS,
  "agent-unavailable": RPC_ERROR_CODES.AGENT_UNAVAILABLE,
  "invalid-params": RPC_ERROR_CODES.INVALID_PARAMS,
  "unsupported-operation": RPC_ERROR_CODES.UNSUPPORTED_OPERATION,
  "push-not-supported": RPC_ERROR_CODES.PUSH_NOT_SUPPORTED,
  "version-not-supported": RPC_ERROR_CODES.VERSION_NOT_SUPPORTED,
  "invalid-agent-response": RPC_ERROR_CODES.INVALID_AGENT_RESPONSE,
  "method-not-found": RPC_ERROR_CODES.METHOD_NOT_FOUND,
  "extended-card-not-configured": RPC_ERROR_CODES.EXTENDED_CARD_NOT_CONFIGURED,
  "content-type-not-supported": RPC_ERROR_CODES.CONTENT_TYPE_NOT_SUPPORTED,
  unauthenticated: RPC_ERROR_CODES.INVALID_REQUEST,
  "shutting-down": RPC_ERROR_CODES.INTERNAL_ERROR,
  "idempotency-conflict": RPC_ERROR_CODES.INVALID_PARAMS,
  internal: RPC_ERROR_CODES.INTERNAL_ERROR,
};

/**
 * Maps anything thrown to an RpcError. A TaskError keeps its message and facts under its reason's code;
 * anything else is a bug or a library's failure, whose text (a stack, "x is not a function") is no business
 * of the client's: it becomes a generic -32603 and the caller logs the original.
 */
export function toRpcError(err: unknown): RpcError {
  if (err instanceof RpcError) return err;
  if (err instanceof TaskError) return new RpcError(REASON_CODES[err.reason], err.message, err.data);
  return RpcError.internal("the router could not complete the request");
}

/**
 * The wire `error` member of anything thrown, in the dialect of the request: v1.0 carries its facts as an
 * array of ProtoJSON details holding a `google.rpc.ErrorInfo` (spec 9.5); v0.1 and v0.3 keep their `data`
 * object (`{field}`, `{taskId}`, ...), which their clients read.
 */
export function rpcErrorBody(err: unknown, dialect: DialectName | undefined): RpcErrorBody {
  const e = toRpcError(err);
  if (dialect !== "v1.0") return e.toJSON();
  const details = errorDetails(err instanceof TaskError ? err.reason : undefined, e.data);
  return details.length > 0 ? { code: e.code, message: e.message, data: details } : { code: e.code, message: e.message };
}

/**
 * The dialect an error answers in: the method's (v1.0's are its own names), else the version the request
 * asked for, so a v1.0 client calling a method that does not exist still reads a v1.0 error.
 */
export function errorDialect(method: unknown, a2aVersion: string | undefined): DialectName | undefined {
  const bound = typeof method === "string" ? bindMethod(method)?.dialects[0]?.name : undefined;
  return bound ?? (requestedA2AVersion(a2aVersion) === "1.0" ? "v1.0" : undefined);
}
