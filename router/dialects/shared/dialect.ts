import type { DialectName, LoggedEvent, PushNotificationConfig, SendRequest, Task, TaskEvent } from "../../core/model.js";

/**
 * What a request asks the router to do, named as the A2A v1.0 operation it is (spec 3.1; the same names in
 * every binding: JSON-RPC methods, REST paths, gRPC calls). Each dialect maps its JSON-RPC methods onto these
 * (`methods`): v0.1 `tasks/sendSubscribe` and v0.3 `message/stream` are both SendStreamingMessage.
 */
export type Operation =
  | "SendMessage"
  | "SendStreamingMessage"
  | "GetTask"
  | "ListTasks"
  | "CancelTask"
  | "SubscribeToTask"
  | "CreateTaskPushNotificationConfig"
  | "GetTaskPushNotificationConfig"
  | "ListTaskPushNotificationConfigs"
  | "DeleteTaskPushNotificationConfig"
  | "GetExtendedAgentCard";

/** An event on its way to a client: logged ones carry their seq, synthetic snapshots do not. */
export type OutboundEvent = LoggedEvent | (TaskEvent & { taskId: string; contextId: string; seq?: undefined });

export interface TaskRef {
  taskId: string;
  historyLength?: number;
}

export interface PushRef {
  taskId: string;
  configId?: string;
  config?: PushNotificationConfig;
}

export interface ListQuery {
  contextId?: string;
  state?: string;
  pageSize?: number;
  pageToken?: string;
  historyLength?: number;
  /** v1.0 ListTasks: render artifacts (default false: the member is omitted). */
  includeArtifacts?: boolean;
  /** v1.0 ListTasks: only tasks whose status time is at or after this ISO time. */
  statusTimestampAfter?: string;
}

/** What renderList needs besides the page itself. */
export interface ListRenderOptions {
  includeArtifacts?: boolean;
  /** Tasks matching the query over all pages, when the store knows it; defaults to this page's length. */
  totalSize?: number;
}

/**
 * One A2A dialect: how its requests read and how its results are written. The engine never sees a
 * dialect's shapes; a dialect never touches the engine. One file per dialect implements this.
 */
export interface Dialect {
  readonly name: DialectName;
  /** Its JSON-RPC method names and what each does. */
  readonly methods: Readonly<Record<string, Operation>>;
  /** ajv schema id ($id in schemas/) for a method's params. */
  paramsSchemaId(method: string): string;
  /**
   * The params as the schema and the translators below read them, before either (v1.0: ProtoJSON's proto
   * field names, `task_id`, read as JSON names). Absent: as sent.
   */
  readParams?(params: unknown): unknown;
  toSendRequest(params: unknown): SendRequest;
  toTaskRef(params: unknown): TaskRef;
  /**
   * A push-config method's params (`operation` names which; absent: a TaskPushNotificationConfig, as a set
   * sends it and as results come back).
   */
  toPushRef(params: unknown, operation?: Operation): PushRef;
  toListQuery?(params: unknown): ListQuery;
  /** A Task as tasks/get answers it. */
  renderTask(task: Task, historyLength?: number): unknown;
  /** tasks/send's answer once the turn ended. */
  renderSendResult(task: Task, historyLength?: number): unknown;
  /** One stream event's `result`. */
  renderEvent(event: OutboundEvent): unknown;
  /** Whether a stream in this dialect opens with the Task object (v1.0) before the events. */
  readonly streamStartsWithTask: boolean;
  renderPushConfig(taskId: string, config: PushNotificationConfig): unknown;
  renderList?(tasks: Task[], nextPageToken: string, pageSize: number, historyLength?: number, options?: ListRenderOptions): unknown;

  // Optional members added for v0.3 / v1.0 (absent = the v0.1 behaviour noted on each).

  /**
   * Whether a send asks to return at once instead of waiting for the turn to end (v0.3
   * `configuration.blocking: false`, v1.0 `configuration.returnImmediately: true`). Absent: always wait.
   */
  returnsImmediately?(params: unknown): boolean;
  /**
   * The opening `result` of a stream that starts with the Task (streamStartsWithTask: v1.0
   * `{task: Task}`), for sends and resubscribes alike.
   */
  renderStreamStart?(task: Task): unknown;
  /** push-list's answer (v0.3: an array of TaskPushNotificationConfig; v1.0: `{configs, nextPageToken}`). */
  renderPushConfigList?(taskId: string, configs: PushNotificationConfig[]): unknown;
  /** push-delete's answer (v0.3: null; v1.0: google.protobuf.Empty `{}`). Absent: null. */
  renderPushDeleted?(): unknown;
  /**
   * Resubscribe (without Last-Event-ID) to a task whose turn has ended: "replay" its artifacts and final
   * status, then close (v0.1/v0.3, the default), or "unsupported" = UnsupportedOperation (v1.0 spec 3.1.6).
   */
  readonly finishedResubscribe?: "replay" | "unsupported";
  /**
   * Whether a client-supplied task id may create a task (v0.1: the client names its tasks; the default).
   * false (v0.3/v1.0): a taskId must name an existing task, else TaskNotFound (v1.0 spec 3.4.2).
   */
  readonly clientNamesTasks?: boolean;
  /** A message whose messageId its sender already sent in that context is answered with the turn it started (CONTRACT 14). */
  readonly dedupesMessageIds?: boolean;
  /**
   * Where this dialect's clients write the ids a request carries (`pushId`: in a send, `pushSetId`: in a push
   * config set on its own), for errors that name the field the client wrote.
   */
  readonly idFields: { taskId: string; contextId: string; messageId: string; pushId: string; pushSetId: string };
  /**
   * How a streaming method that fails before its stream opens answers. "event" (v0.1/v0.3, the default): the
   * response of a streaming method is an SSE stream whose events are JSON-RPC responses (v0.3 spec 3.3.1 and
   * 7: 200, text/event-stream), so the error is its one event. "json" (v1.0): a JSON-RPC error response, as
   * the v1.0 TCK reads it.
   */
  readonly streamFailure?: "event" | "json";
}
