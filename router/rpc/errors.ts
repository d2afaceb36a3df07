import { TaskError, type TaskErrorReason } from "../core/errors.js";
import { JSONRPC_CODES, type RpcErrorBody } from "../jsonrpc/envelope.js";

export type { RpcErrorBody };

/** Every JSON-RPC error code the router uses. No code literal appears anywhere else. */
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

/** A JSON-RPC error with the router's factories; `toJSON()` is the wire `error` member. */
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
    return this.data === undefined
      ? { code: this.code, message: this.message }
      : { code: this.code, message: this.message, data: this.data };
  }

  static parse(detail: string): RpcError {
    return new RpcError(RPC_ERROR_CODES.PARSE_ERROR, `Parse error: ${detail}`);
  }
  static invalidRequest(detail: string, field?: string): RpcError {
    return new RpcError(RPC_ERROR_CODES.INVALID_REQUEST, `Invalid request: ${detail}`, field ? { field } : undefined);
  }
  static methodNotFound(method: string): RpcError {
    return new RpcError(RPC_ERROR_CODES.METHOD_NOT_FOUND, `Method not found: ${method}`, { method });
  }
  static invalidParams(detail: string, field: string, extra?: Record<string, unknown>): RpcError {
    return new RpcError(RPC_ERROR_CODES.INVALID_PARAMS, `Invalid params: ${detail}`, { field, ...extra });
  }
  static internal(detail: string): RpcError {
    return new RpcError(RPC_ERROR_CODES.INTERNAL_ERROR, `Internal error: ${detail}`);
  }
  static taskNotFound(taskId: string): RpcError {
    return new RpcError(RPC_ERROR_CODES.TASK_NOT_FOUND, `Task not found: ${taskId}`, { taskId });
  }
  static taskNotCancelable(taskId: string, state: string): RpcError {
    return new RpcError(RPC_ERROR_CODES.TASK_NOT_CANCELABLE, `Task cannot be canceled: ${taskId} is ${state}`, {
      taskId,
      state,
    });
  }
  static pushNotSupported(): RpcError {
    return new RpcError(RPC_ERROR_CODES.PUSH_NOT_SUPPORTED, "Push Notification is not supported");
  }
  static unsupportedOperation(detail: string, data?: Record<string, unknown>): RpcError {
    return new RpcError(RPC_ERROR_CODES.UNSUPPORTED_OPERATION, `This operation is not supported: ${detail}`, data);
  }
  static versionNotSupported(version: string): RpcError {
    return new RpcError(RPC_ERROR_CODES.VERSION_NOT_SUPPORTED, `A2A version not supported: ${version}`, { version });
  }
  static extendedCardNotConfigured(): RpcError {
    return new RpcError(RPC_ERROR_CODES.EXTENDED_CARD_NOT_CONFIGURED, "Extended agent card is not configured");
  }
  static invalidAgentResponse(detail: string): RpcError {
    return new RpcError(RPC_ERROR_CODES.INVALID_AGENT_RESPONSE, `Invalid agent response: ${detail}`);
  }
  static unknownAgent(agent: string): RpcError {
    return new RpcError(RPC_ERROR_CODES.INVALID_PARAMS, `Invalid params: unknown agent "${agent}"`, {
      field: "metadata.agent",
      agent,
    });
  }
  static agentUnavailable(agent: string): RpcError {
    return new RpcError(RPC_ERROR_CODES.AGENT_UNAVAILABLE, "agent unavailable", { agent });
  }
}

/** The JSON-RPC code of each task-service reason: the one place a meaning becomes a code. */
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
  "unauthenticated": RPC_ERROR_CODES.INVALID_REQUEST,
  "shutting-down": RPC_ERROR_CODES.INTERNAL_ERROR,
  internal: RPC_ERROR_CODES.INTERNAL_ERROR,
};

/**
 * Maps anything thrown to an RpcError. A task-service error keeps its message and facts under its code;
 * anything else is a bug or a library's failure, whose text (a stack, "x is not a function") is no business
 * of the client's: it becomes a generic -32603 and the caller logs the original.
 */
export function toRpcError(err: unknown): RpcError {
  if (err instanceof RpcError) return err;
  if (err instanceof TaskError) return new RpcError(REASON_CODES[err.reason], err.message, err.data);
  return RpcError.internal("the router could not complete the request");
}
