/**
 * The MCP face's one error table: every task-service reason as a JSON-RPC error code, and whether a
 * `tools/call` reports it as a tool result with `isError` (a problem of the turn, which the model may read and
 * act on) rather than as a protocol error (a request the host got wrong).
 */
import { ErrorCode, McpError, type CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { TaskError, type TaskErrorReason } from "../../core/errors.js";

export interface McpErrorKind {
  code: number;
  /** In `tools/call`: answered as a result with `isError: true`. */
  toolError: boolean;
}

/** Every TaskError reason (tests/mcp keeps it complete). */
export const REASON_ERRORS: Record<TaskErrorReason, McpErrorKind> = {
  "task-not-found": { code: ErrorCode.InvalidParams, toolError: false },
  "task-not-cancelable": { code: ErrorCode.InvalidParams, toolError: false },
  "unknown-agent": { code: ErrorCode.InvalidParams, toolError: false },
  "agent-unavailable": { code: ErrorCode.InternalError, toolError: true },
  "invalid-params": { code: ErrorCode.InvalidParams, toolError: false },
  "unsupported-operation": { code: ErrorCode.InvalidRequest, toolError: true },
  "push-not-supported": { code: ErrorCode.InvalidRequest, toolError: false },
  "version-not-supported": { code: ErrorCode.InvalidRequest, toolError: false },
  "invalid-agent-response": { code: ErrorCode.InternalError, toolError: true },
  "method-not-found": { code: ErrorCode.MethodNotFound, toolError: false },
  "extended-card-not-configured": { code: ErrorCode.InvalidRequest, toolError: false },
  "content-type-not-supported": { code: ErrorCode.InvalidParams, toolError: true },
  unauthenticated: { code: ErrorCode.InvalidRequest, toolError: false },
  "idempotency-conflict": { code: ErrorCode.InvalidParams, toolError: false },
  "shutting-down": { code: ErrorCode.InternalError, toolError: true },
  internal: { code: ErrorCode.InternalError, toolError: true },
};

/** The message of anything thrown that is not a TaskError: no internals. */
const INTERNAL = "Internal error: the router could not complete the request";

/** A protocol error for anything thrown (a TaskError by its reason, with `data` naming the field at fault). */
export function mcpError(err: unknown): McpError {
  if (err instanceof McpError) return err;
  if (!(err instanceof TaskError)) return new McpError(ErrorCode.InternalError, INTERNAL);
  return new McpError(REASON_ERRORS[err.reason].code, err.message, { reason: err.reason, ...(err.field !== undefined && { field: err.field }) });
}

/** What `tools/call` answers for something thrown: a tool error result, or a protocol error (thrown). */
export function toolFailure(err: unknown): CallToolResult {
  if (err instanceof TaskError && REASON_ERRORS[err.reason].toolError) return { content: [{ type: "text", text: err.message }], isError: true };
  throw mcpError(err);
}
