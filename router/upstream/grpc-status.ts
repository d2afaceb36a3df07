import { status, type ServiceError } from "@grpc/grpc-js";
import { TaskError, type TaskErrorReason } from "../core/errors.js";
import { A2A_REASON_NAMES } from "../dialects/index.js";
import { readStatusDetails } from "../dialects/v10/grpc/proto.js";
import { MAX_REASON_CHARS } from "../client/index.js";
import { UpstreamUnreachable } from "./transport.js";

/**
 * An upstream gRPC agent's failures in the router's terms. A gRPC error is a status code, a message and,
 * from an A2A server, a `google.rpc.Status` in the `grpc-status-details-bin` trailer whose ErrorInfo names
 * the A2A error (`TASK_NOT_FOUND`, ...). The router reads it back into its own reasons: the ErrorInfo
 * reason through v1.0's one vocabulary (A2A_REASON_NAMES, read backwards), else the status code through
 * GRPC_STATUS_REASONS. Like the HTTP path's, the message names the agent and what it said, briefly.
 */

/** The router's reason for each gRPC status an upstream may answer with (when no ErrorInfo says better). */
export const GRPC_STATUS_REASONS: Readonly<Record<Exclude<status, status.OK>, TaskErrorReason>> = {
  [status.CANCELLED]: "internal",
  [status.UNKNOWN]: "internal",
  [status.INVALID_ARGUMENT]: "invalid-params",
  [status.DEADLINE_EXCEEDED]: "agent-unavailable",
  [status.NOT_FOUND]: "task-not-found",
  [status.ALREADY_EXISTS]: "invalid-params",
  [status.PERMISSION_DENIED]: "unauthenticated",
  [status.RESOURCE_EXHAUSTED]: "agent-unavailable",
  [status.FAILED_PRECONDITION]: "unsupported-operation",
  [status.ABORTED]: "internal",
  [status.OUT_OF_RANGE]: "invalid-params",
  [status.UNIMPLEMENTED]: "method-not-found",
  [status.INTERNAL]: "internal",
  [status.UNAVAILABLE]: "agent-unavailable",
  [status.DATA_LOSS]: "internal",
  [status.UNAUTHENTICATED]: "unauthenticated",
};

/**
 * ErrorInfo reason -> the router's reason. INVALID_PARAMS stands for two of the router's reasons (an unknown
 * agent is invalid params on the wire): read back, it is invalid-params.
 */
const REASONS_BY_NAME = new Map<string, TaskErrorReason>();
for (const [reason, name] of Object.entries(A2A_REASON_NAMES) as Array<[TaskErrorReason, string | undefined]>) {
  if (name && (!REASONS_BY_NAME.has(name) || reason === "invalid-params")) REASONS_BY_NAME.set(name, reason);
}

const STATUS_NAMES = new Map<number, string>(Object.entries(status).map(([name, code]) => [code as number, name]));
const DETAILS_KEY = "grpc-status-details-bin";
/** grpc-js's words when an answer passed `grpc.max_receive_message_length`. */
const TOO_LARGE = /^Received message larger than max/;

/** Whether `err` is a gRPC call's failure (a status), as grpc-js reports it. */
export function isServiceError(err: unknown): err is ServiceError {
  return err instanceof Error && typeof (err as Partial<ServiceError>).code === "number" && "details" in err;
}

/**
 * A failed gRPC call as the error its task fails with: UpstreamUnreachable when no connection could be made
 * (UNAVAILABLE without an A2A status: the agent goes offline), else a TaskError whose reason comes from the
 * ErrorInfo or the status code.
 */
export function grpcFailure(err: ServiceError, agentId: string, method: string, maxAnswerBytes: number): Error {
  const info = errorInfoOf(err);
  if (!info && err.code === status.UNAVAILABLE) {
    const why = /\b(E[A-Z]{3,})\b/.exec(err.details)?.[1] ?? "UNAVAILABLE";
    return new UpstreamUnreachable(`Upstream agent ${agentId} is unreachable (${why})`);
  }
  if (!info && err.code === status.RESOURCE_EXHAUSTED && TOO_LARGE.test(err.details)) {
    return new TaskError("invalid-agent-response", `Upstream agent ${agentId} sent an answer of more than ${maxAnswerBytes} bytes on ${method}`);
  }
  const code = err.code as Exclude<status, status.OK>;
  const reason = (info ? REASONS_BY_NAME.get(info) : undefined) ?? GRPC_STATUS_REASONS[code] ?? "internal";
  const named = `${STATUS_NAMES.get(code) ?? code}${info ? ` (${info})` : ""}`;
  const message = err.details ? `: ${err.details.slice(0, MAX_REASON_CHARS)}` : "";
  return new TaskError(reason, `Upstream agent ${agentId} answered gRPC ${named} on ${method}${message}`);
}

/** The ErrorInfo reason of the status details trailer, if the agent sent one that can be read. */
function errorInfoOf(err: ServiceError): string | undefined {
  const bytes = err.metadata?.get(DETAILS_KEY)[0];
  if (!(bytes instanceof Uint8Array)) return undefined;
  try {
    return readStatusDetails(bytes).info?.reason || undefined;
  } catch {
    return undefined; // details that are not a google.rpc.Status: the code says enough
  }
}
