/**
 * What can go wrong with a task operation, said as a meaning, not as a wire code. The engine and the task
 * service raise these; each face maps a reason to its own wire (JSON-RPC codes in rpc/errors.ts, HTTP
 * statuses in the REST and chat faces) in one table of its own.
 */
export type TaskErrorReason =
  | "task-not-found"
  | "task-not-cancelable"
  | "unknown-agent"
  | "agent-unavailable"
  | "invalid-params"
  | "unsupported-operation"
  | "push-not-supported"
  | "version-not-supported"
  | "invalid-agent-response"
  | "method-not-found"
  | "extended-card-not-configured"
  | "content-type-not-supported"
  | "unauthenticated"
  | "shutting-down"
  | "idempotency-conflict"
  | "internal";

/** Every reason, for tables that must cover them all (tests keep the faces' tables complete). */
export const TASK_ERROR_REASONS: readonly TaskErrorReason[] = [
  "task-not-found",
  "task-not-cancelable",
  "unknown-agent",
  "agent-unavailable",
  "invalid-params",
  "unsupported-operation",
  "push-not-supported",
  "version-not-supported",
  "invalid-agent-response",
  "method-not-found",
  "extended-card-not-configured",
  "content-type-not-supported",
  "unauthenticated",
  "shutting-down",
  "idempotency-conflict",
  "internal",
];

/** A task operation's failure: a reason, a message fit for a client, and the facts a client may act on. */
export class TaskError extends Error {
  constructor(
    readonly reason: TaskErrorReason,
    message: string,
    readonly data?: Record<string, unknown>,
  ) {
    super(message);
    this.name = "TaskError";
  }

  /** The request field at fault (invalid-params), when one is named. */
  get field(): string | undefined {
    const field = this.data?.field;
    return typeof field === "string" ? field : undefined;
  }

  static taskNotFound(taskId: string): TaskError {
    return new TaskError("task-not-found", `Task not found: ${taskId}`, { taskId });
  }
  static taskNotCancelable(taskId: string, state: string): TaskError {
    return new TaskError("task-not-cancelable", `Task cannot be canceled: ${taskId} is ${state}`, { taskId, state });
  }
  static unknownAgent(agent: string): TaskError {
    return new TaskError("unknown-agent", `Invalid params: unknown agent "${agent}"`, { field: "metadata.agent", agent });
  }
  static agentUnavailable(agent: string): TaskError {
    return new TaskError("agent-unavailable", "agent unavailable", { agent });
  }
  static invalidParams(detail: string, field: string, extra?: Record<string, unknown>): TaskError {
    return new TaskError("invalid-params", `Invalid params: ${detail}`, { field, ...extra });
  }
  static unsupportedOperation(detail: string, data?: Record<string, unknown>): TaskError {
    return new TaskError("unsupported-operation", `This operation is not supported: ${detail}`, data);
  }
  static pushNotSupported(): TaskError {
    return new TaskError("push-not-supported", "Push Notification is not supported");
  }
  static versionNotSupported(version: string): TaskError {
    return new TaskError("version-not-supported", `A2A version not supported: ${version}`, { version });
  }
  /** An agent answered with something its dialect does not allow; the detail never quotes the agent's text at length. */
  static invalidAgentResponse(detail: string): TaskError {
    return new TaskError("invalid-agent-response", `Invalid agent response: ${detail}`);
  }
  static methodNotFound(method: string): TaskError {
    return new TaskError("method-not-found", `Method not found: ${method}`, { method });
  }
  static extendedCardNotConfigured(): TaskError {
    return new TaskError("extended-card-not-configured", "Extended agent card is not configured");
  }
  static contentTypeNotSupported(detail: string): TaskError {
    return new TaskError("content-type-not-supported", `Content type not supported: ${detail}`);
  }
  static unauthenticated(detail: string): TaskError {
    return new TaskError("unauthenticated", detail);
  }
  static shuttingDown(): TaskError {
    return new TaskError("shutting-down", "Internal error: router is shutting down");
  }
  /** An `Idempotency-Key` this owner already used, within its time, for a different request (CONTRACT 14). */
  static idempotencyConflict(key: string): TaskError {
    return new TaskError(
      "idempotency-conflict",
      `Invalid params: Idempotency-Key "${key}" was already used for a different request; send a new key for a new request`,
      { field: "Idempotency-Key" },
    );
  }
  static internal(detail: string): TaskError {
    return new TaskError("internal", `Internal error: ${detail}`);
  }
}
