/**
 * What every handler of one MCP session shares: who the session is (its claims and the caller's scope), the
 * task service, the session's event store, and the calls it runs on this instance.
 */
import type { RequestId } from "@modelcontextprotocol/sdk/types.js";
import type { Logger } from "pino";
import type { DialectPolicy } from "../../service/dialect-policy.js";
import type { Scope } from "../../service/scope.js";
import type { TaskService } from "../../service/task-service.js";
import type { CallStream } from "./call-stream.js";
import type { SessionEventStore } from "./event-store.js";
import type { SessionClaims } from "./session-id.js";

/**
 * The dialect MCP tasks are created in (A2A clients' tasks/get answers in v0.3), with router-chosen task ids
 * allowed: a call names its task before the task exists, so its stream's first event id can name it.
 */
export const MCP_DIALECT: DialectPolicy = {
  name: "v0.3",
  clientNamesTasks: true,
  idFields: { taskId: "taskId", contextId: "contextId", messageId: "messageId", pushId: "pushNotificationConfig.id", pushSetId: "pushNotificationConfig.id" },
};

/** A call's task, chosen before the request reaches the SDK (the route plans it; see routes.ts). */
export interface CallPlan {
  taskId: string;
  /** The task exists (a continuation), or the call creates it. */
  existing: boolean;
  fromSeq: number;
}

/** A `tools/call` running on this instance. */
export interface LiveCall {
  taskId: string;
  /** Set while the call waits for the answer to an elicitation it sent after the event at this seq. */
  elicitingAfter?: number;
}

export interface SessionContext {
  id: string;
  claims: SessionClaims;
  scope: Scope;
  service: TaskService;
  logger: Logger;
  store: SessionEventStore;
  /** Plans of calls the route saw, by request id, taken by the call's handler. */
  plans: Map<RequestId, CallPlan>;
  calls: Map<RequestId, LiveCall>;
  /** The streams of calls whose POST response the route serves (their progress is written there directly). */
  streams: Map<RequestId, CallStream>;
  /** Calls the host cancelled (notifications/cancelled), the most recent ones. */
  cancelled: Set<RequestId>;
  /** Set when the session is being closed (DELETE, eviction): its calls' aborts are then not cancels. */
  closing: boolean;
}
