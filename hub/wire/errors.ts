import { TaskError, type TaskErrorReason } from "../../router/core/errors.js";
import { JSONRPC_CODES, type RpcErrorBody } from "../../router/jsonrpc/envelope.js";

/**
 * Every error code the hub protocol uses, in one table: the hub's refusals and an agent's answers to the
 * hub's requests are JSON-RPC 2.0 errors (router/jsonrpc), with these codes and no others.
 */
export const HUB_ERROR_CODES = {
  PARSE_ERROR: JSONRPC_CODES.PARSE_ERROR,
  INVALID_REQUEST: JSONRPC_CODES.INVALID_REQUEST,
  METHOD_NOT_FOUND: JSONRPC_CODES.METHOD_NOT_FOUND,
  INVALID_PARAMS: JSONRPC_CODES.INVALID_PARAMS,
  INTERNAL_ERROR: JSONRPC_CODES.INTERNAL_ERROR,
} as const;

export type HubErrorCode = (typeof HUB_ERROR_CODES)[keyof typeof HUB_ERROR_CODES];

/** A refusal on the hub's wire (either side may send one); `toJSON()` is the frame's `error` member. */
export class HubRefusal extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
    this.name = "HubRefusal";
  }

  toJSON(): RpcErrorBody {
    return this.data === undefined ? { code: this.code, message: this.message } : { code: this.code, message: this.message, data: this.data };
  }

  static parse(detail: string): HubRefusal {
    return new HubRefusal(HUB_ERROR_CODES.PARSE_ERROR, `Parse error: ${detail}`);
  }
  static invalidRequest(detail: string, field?: string): HubRefusal {
    return new HubRefusal(HUB_ERROR_CODES.INVALID_REQUEST, `Invalid request: ${detail}`, field ? { field } : undefined);
  }
  static methodNotFound(method: string): HubRefusal {
    return new HubRefusal(HUB_ERROR_CODES.METHOD_NOT_FOUND, `Method not found: ${method}`, { method });
  }
  static invalidParams(detail: string, field: string, extra?: Record<string, unknown>): HubRefusal {
    return new HubRefusal(HUB_ERROR_CODES.INVALID_PARAMS, `Invalid params: ${detail}`, { field, ...extra });
  }
  static internal(detail: string): HubRefusal {
    return new HubRefusal(HUB_ERROR_CODES.INTERNAL_ERROR, `Internal error: ${detail}`);
  }
}

/**
 * The hub's code for each reason a frame's handling may raise below the hub (a translator refusing an agent's
 * part, the engine refusing an update): the agent is told the meaning in the hub's codes, one table the
 * compiler keeps complete.
 */
export const HUB_REASON_CODES: Record<TaskErrorReason, HubErrorCode> = {
  "task-not-found": HUB_ERROR_CODES.INVALID_PARAMS,
  "task-not-cancelable": HUB_ERROR_CODES.INVALID_REQUEST,
  "unknown-agent": HUB_ERROR_CODES.INVALID_PARAMS,
  "agent-unavailable": HUB_ERROR_CODES.INTERNAL_ERROR,
  "invalid-params": HUB_ERROR_CODES.INVALID_PARAMS,
  "unsupported-operation": HUB_ERROR_CODES.INVALID_REQUEST,
  "push-not-supported": HUB_ERROR_CODES.INVALID_REQUEST,
  "version-not-supported": HUB_ERROR_CODES.INVALID_REQUEST,
  "invalid-agent-response": HUB_ERROR_CODES.INVALID_PARAMS,
  "method-not-found": HUB_ERROR_CODES.METHOD_NOT_FOUND,
  "extended-card-not-configured": HUB_ERROR_CODES.INVALID_REQUEST,
  "content-type-not-supported": HUB_ERROR_CODES.INVALID_PARAMS,
  unauthenticated: HUB_ERROR_CODES.INVALID_REQUEST,
  "shutting-down": HUB_ERROR_CODES.INTERNAL_ERROR,
  "idempotency-conflict": HUB_ERROR_CODES.INVALID_PARAMS,
  internal: HUB_ERROR_CODES.INTERNAL_ERROR,
};

/**
 * Anything thrown while handling a frame, as the agent is told it: a HubRefusal as it is, a TaskError by its
 * reason (its message and facts are fit for a peer), anything else generically (its text is the router's own).
 */
export function toHubRefusal(err: unknown): HubRefusal {
  if (err instanceof HubRefusal) return err;
  if (err instanceof TaskError) return new HubRefusal(HUB_REASON_CODES[err.reason], err.message, err.data);
  return HubRefusal.internal("the router could not complete the request");
}
