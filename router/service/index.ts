/** The transport-free task service every face calls: send, stream, resubscribe, get, list, cancel, push configs. */
export {
  TaskService,
  type AgentCatalog,
  type ListQuery,
  type PushService,
  type Resubscription,
  type StartedTurn,
  type TaskPage,
  type TaskServiceDeps,
} from "./task-service.js";
export type { Caller, Scope } from "./scope.js";
export { decodePageToken, encodePageToken } from "./page-token.js";
export { MAX_ID_CHARS } from "./id-limits.js";
export type { DialectPolicy, IdFields } from "./dialect-policy.js";
