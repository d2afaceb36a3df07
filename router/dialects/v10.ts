import type {
  AgentUpdate,
  Artifact,
  Message,
  Metadata,
  Part,
  PushNotificationConfig,
  SendRequest,
  Task,
  TaskState,
  TaskStatus,
} from "../core/model.js";
import { RpcError } from "../rpc/errors.js";
import {
  answerUpdates,
  artifactUpdate,
  mapArtifactParts,
  mapStatus,
  type MessageScope,
  schemaIdLookup,
  scopeMessage,
  sendRequestOf,
  statusUpdate,
  taskRefOf,
  taskUpdates,
} from "./common.js";
import type { Dialect, ListQuery, OutboundEvent, PushRef } from "./dialect.js";
import { dataPartOf, dataValueOf, historyWindow, invalidAgentResult, isRecord, nonEmpty, someMetadata } from "./parts.js";

/**
 * A2A v1.0 (JSON-RPC `SendMessage` & co., header `A2A-Version: 1.0`): the ProtoJSON mapping of
 * lf.a2a.v1 (reference/a2a-v1.0.1.proto). camelCase members; enums by name (`TASK_STATE_WORKING`,
 * `ROLE_USER`); oneofs by which member is present: a Part is `{text}` | `{raw}` | `{url}` | `{data}`
 * (with optional `filename`, `mediaType`, `metadata`), a stream event is `{task}` | `{message}` |
 * `{statusUpdate}` | `{artifactUpdate}`. There is no `kind` and no `final`: a stream ends with its
 * turn's last status. Both directions live here (client side: the Dialect; agent side:
 * router/upstream/protocols/v10.ts).
 */

export type V10TaskState =
  | "TASK_STATE_UNSPECIFIED"
  | "TASK_STATE_SUBMITTED"
  | "TASK_STATE_WORKING"
  | "TASK_STATE_COMPLETED"
  | "TASK_STATE_FAILED"
  | "TASK_STATE_CANCELED"
  | "TASK_STATE_INPUT_REQUIRED"
  | "TASK_STATE_REJECTED"
  | "TASK_STATE_AUTH_REQUIRED";
export type V10Role = "ROLE_USER" | "ROLE_AGENT";

export interface V10Part {
  text?: string;
  /** base64 bytes */
  raw?: string;
  url?: string;
  data?: unknown;
  metadata?: Metadata;
  filename?: string;
  mediaType?: string;
}

export interface V10Message {
  messageId: string;
  role: V10Role;
  parts: V10Part[];
  contextId?: string;
  taskId?: string;
  metadata?: Metadata;
  extensions?: string[];
  referenceTaskIds?: string[];
}

export interface V10TaskStatus {
  state: V10TaskState;
  message?: V10Message;
  timestamp?: string;
}

export interface V10Artifact {
  artifactId: string;
  name?: string;
  description?: string;
  parts: V10Part[];
  metadata?: Metadata;
  extensions?: string[];
}

export interface V10Task {
  id: string;
  contextId: string;
  status: V10TaskStatus;
  artifacts?: V10Artifact[];
  history?: V10Message[];
  metadata?: Metadata;
}

export interface V10StatusUpdate {
  taskId: string;
  contextId: string;
  status: V10TaskStatus;
  metadata?: Metadata;
}

export interface V10ArtifactUpdate {
  taskId: string;
  contextId: string;
  artifact: V10Artifact;
  append?: boolean;
  lastChunk?: boolean;
  metadata?: Metadata;
}

/** StreamResponse (and, with task|message only, SendMessageResponse): exactly one member is set. */
export type V10StreamResponse =
  | { task: V10Task }
  | { message: V10Message }
  | { statusUpdate: V10StatusUpdate }
  | { artifactUpdate: V10ArtifactUpdate };

export interface V10AuthenticationInfo {
  scheme: string;
  credentials?: string;
}

export interface V10TaskPushNotificationConfig {
  tenant?: string;
  id?: string;
  taskId?: string;
  url: string;
  token?: string;
  authentication?: V10AuthenticationInfo;
}

export interface V10SendMessageConfiguration {
  acceptedOutputModes?: string[];
  taskPushNotificationConfig?: V10TaskPushNotificationConfig;
  historyLength?: number;
  returnImmediately?: boolean;
}

export interface V10SendMessageRequest {
  tenant?: string;
  message: V10Message;
  configuration?: V10SendMessageConfiguration;
  metadata?: Metadata;
}

export interface V10ListTasksRequest {
  tenant?: string;
  contextId?: string;
  status?: V10TaskState;
  pageSize?: number;
  pageToken?: string;
  historyLength?: number;
  statusTimestampAfter?: string;
  includeArtifacts?: boolean;
}

// ---- enums ----------------------------------------------------------------------------------------

const STATE_TO_V10: Record<TaskState, V10TaskState> = {
  submitted: "TASK_STATE_SUBMITTED",
  working: "TASK_STATE_WORKING",
  "input-required": "TASK_STATE_INPUT_REQUIRED",
  completed: "TASK_STATE_COMPLETED",
  canceled: "TASK_STATE_CANCELED",
  failed: "TASK_STATE_FAILED",
  rejected: "TASK_STATE_REJECTED",
  "auth-required": "TASK_STATE_AUTH_REQUIRED",
  unknown: "TASK_STATE_UNSPECIFIED",
};
const STATE_FROM_V10 = Object.fromEntries(Object.entries(STATE_TO_V10).map(([k, v]) => [v, k])) as Record<
  V10TaskState,
  TaskState
>;

export function stateToV10(state: TaskState): V10TaskState {
  return STATE_TO_V10[state];
}

/** Unknown names (a newer agent) read as "unknown" rather than failing the task. */
export function stateFromV10(state: string): TaskState {
  return STATE_FROM_V10[state as V10TaskState] ?? "unknown";
}

export function roleToV10(role: Message["role"]): V10Role {
  return role === "user" ? "ROLE_USER" : "ROLE_AGENT";
}

export function roleFromV10(role: string): Message["role"] {
  return role === "ROLE_USER" ? "user" : "agent";
}

// ---- parts, messages, artifacts -------------------------------------------------------------------

/** A v1.0 part as the internal (v0.3-shaped) one: raw/url become a file, non-object data is wrapped. */
export function partFromV10(p: V10Part): Part {
  const meta = p.metadata && { metadata: p.metadata };
  if (p.text !== undefined) return { kind: "text", text: p.text, ...meta };
  if (p.raw !== undefined || p.url !== undefined) {
    return {
      kind: "file",
      file: {
        ...(p.raw !== undefined ? { bytes: p.raw } : { uri: p.url }),
        ...(nonEmpty(p.filename) && { name: p.filename }),
        ...(nonEmpty(p.mediaType) && { mimeType: p.mediaType }),
      },
      ...meta,
    };
  }
  if ("data" in p) return dataPartOf(p.data, p.metadata);
  throw RpcError.invalidParams("a part must have one of text, raw, url or data", "parts");
}

export function partToV10(p: Part): V10Part {
  if (p.kind === "text") return { text: p.text, ...(p.metadata && { metadata: p.metadata }) };
  if (p.kind === "data") {
    const { value, metadata } = dataValueOf(p);
    return { data: value, ...(metadata && { metadata }) };
  }
  const f = p.file;
  return {
    ...(f.bytes !== undefined ? { raw: f.bytes } : { url: f.uri ?? "" }),
    ...(f.name !== undefined && { filename: f.name }),
    ...(f.mimeType !== undefined && { mediaType: f.mimeType }),
    ...(p.metadata && { metadata: p.metadata }),
  };
}

export function messageFromV10(m: V10Message): Message {
  return {
    role: roleFromV10(m.role),
    parts: m.parts.map(partFromV10),
    ...(nonEmpty(m.messageId) && { messageId: m.messageId }),
    ...(nonEmpty(m.taskId) && { taskId: m.taskId }),
    ...(nonEmpty(m.contextId) && { contextId: m.contextId }),
    ...(m.metadata && { metadata: m.metadata }),
  };
}

/** Fills taskId/contextId from `scope` when the message lacks them; a stable messageId when it has none. */
export function messageToV10(m: Message, scope: MessageScope = {}): V10Message {
  const { messageId, ...where } = scopeMessage(m, scope);
  return {
    messageId,
    role: roleToV10(m.role),
    parts: m.parts.map(partToV10),
    ...where,
    ...(m.metadata && { metadata: m.metadata }),
  };
}

/** Not mapArtifactParts: ProtoJSON may write an unset name or description as "" and omit empty `parts`. */
export function artifactFromV10(a: V10Artifact): Artifact {
  return {
    artifactId: a.artifactId,
    parts: (a.parts ?? []).map(partFromV10),
    ...(nonEmpty(a.name) && { name: a.name }),
    ...(nonEmpty(a.description) && { description: a.description }),
    ...(a.metadata && { metadata: a.metadata }),
  };
}

export function artifactToV10(a: Artifact): V10Artifact {
  return mapArtifactParts(a, partToV10);
}

// ---- status, tasks, events ------------------------------------------------------------------------

export function statusFromV10(s: V10TaskStatus): TaskStatus {
  return mapStatus(s, stateFromV10(s.state), messageFromV10);
}

export function statusToV10(s: TaskStatus, scope: MessageScope): V10TaskStatus {
  return mapStatus(s, stateToV10(s.state), (m) => messageToV10(m, scope));
}

export interface V10TaskRenderOptions {
  /** A2A historyLength: unset = all, 0 = none, N = the last N. */
  historyLength?: number;
  /** false omits `artifacts` entirely (ListTasks without includeArtifacts, spec 3.1.4). Default true. */
  includeArtifacts?: boolean;
}

export function taskToV10(task: Task, options: V10TaskRenderOptions = {}): V10Task {
  const scope = { taskId: task.id, contextId: task.contextId };
  const history = historyWindow(task.history, options.historyLength);
  const metadata = someMetadata(task.metadata);
  return {
    id: task.id,
    contextId: task.contextId,
    status: statusToV10(task.status, scope),
    ...(options.includeArtifacts !== false && { artifacts: task.artifacts.map(artifactToV10) }),
    ...(history && { history: history.map((m) => messageToV10(m, scope)) }),
    ...(metadata && { metadata }),
  };
}

export function eventToV10(event: OutboundEvent): V10StreamResponse {
  const meta = event.metadata && { metadata: event.metadata };
  if (event.kind === "artifact") {
    return {
      artifactUpdate: {
        taskId: event.taskId,
        contextId: event.contextId,
        artifact: artifactToV10(event.artifact),
        ...(event.append && { append: true }),
        ...(event.lastChunk && { lastChunk: true }),
        ...meta,
      },
    };
  }
  return {
    statusUpdate: {
      taskId: event.taskId,
      contextId: event.contextId,
      status: statusToV10(event.status, { taskId: event.taskId, contextId: event.contextId }),
      ...meta,
    },
  };
}

/**
 * What a v1.0 agent's SendMessageResponse or StreamResponse says, as internal updates (agent side).
 * A Task becomes its artifacts then its status; a Message (an answer without a task) a completed status
 * carrying it. A status update's turn end is left to its state (v1.0 has no `final`).
 */
export function updatesFromV10(result: unknown): AgentUpdate[] {
  if (!isRecord(result)) throw invalidAgentResult("v1.0", result);
  if (isRecord(result.statusUpdate)) {
    const e = result.statusUpdate as unknown as V10StatusUpdate;
    return [statusUpdate(statusFromV10(e.status), e.metadata)];
  }
  if (isRecord(result.artifactUpdate)) {
    const e = result.artifactUpdate as unknown as V10ArtifactUpdate;
    return [artifactUpdate(artifactFromV10(e.artifact), e)];
  }
  if (isRecord(result.task)) {
    const t = result.task as unknown as V10Task;
    if (!isRecord(t.status)) throw invalidAgentResult("v1.0", result);
    return taskUpdates((t.artifacts ?? []).map(artifactFromV10), statusFromV10(t.status), t.metadata);
  }
  if (isRecord(result.message)) return answerUpdates(messageFromV10(result.message as unknown as V10Message));
  throw invalidAgentResult("v1.0", result);
}

// ---- push notification configs --------------------------------------------------------------------

export function pushConfigFromV10(c: V10TaskPushNotificationConfig): PushNotificationConfig {
  return {
    url: c.url,
    ...(nonEmpty(c.id) && { id: c.id }),
    ...(nonEmpty(c.token) && { token: c.token }),
    ...(c.authentication &&
      nonEmpty(c.authentication.scheme) && {
        authentication: {
          schemes: [c.authentication.scheme],
          ...(nonEmpty(c.authentication.credentials) && { credentials: c.authentication.credentials }),
        },
      }),
  };
}

/** v1.0 has one scheme where v0.3 had a list: the first one is the one the router uses. */
export function pushConfigToV10(taskId: string, c: PushNotificationConfig): V10TaskPushNotificationConfig {
  const scheme = c.authentication?.schemes[0];
  return {
    taskId,
    ...(c.id !== undefined && { id: c.id }),
    url: c.url,
    ...(c.token !== undefined && { token: c.token }),
    ...(scheme !== undefined && {
      authentication: {
        scheme,
        ...(c.authentication?.credentials !== undefined && { credentials: c.authentication.credentials }),
      },
    }),
  };
}

// ---- the dialect ----------------------------------------------------------------------------------

const METHODS = {
  SendMessage: "send",
  SendStreamingMessage: "stream",
  GetTask: "get",
  ListTasks: "list",
  CancelTask: "cancel",
  SubscribeToTask: "resubscribe",
  CreateTaskPushNotificationConfig: "push-set",
  GetTaskPushNotificationConfig: "push-get",
  ListTaskPushNotificationConfigs: "push-list",
  DeleteTaskPushNotificationConfig: "push-delete",
  GetExtendedAgentCard: "extended-card",
} as const;

const SCHEMA_IDS: Record<keyof typeof METHODS, string> = {
  SendMessage: "v1.0#/$defs/SendMessageRequest",
  SendStreamingMessage: "v1.0#/$defs/SendMessageRequest",
  GetTask: "v1.0#/$defs/GetTaskRequest",
  ListTasks: "v1.0#/$defs/ListTasksRequest",
  CancelTask: "v1.0#/$defs/CancelTaskRequest",
  SubscribeToTask: "v1.0#/$defs/SubscribeToTaskRequest",
  CreateTaskPushNotificationConfig: "v1.0#/$defs/CreateTaskPushNotificationConfigRequest",
  GetTaskPushNotificationConfig: "v1.0#/$defs/GetTaskPushNotificationConfigRequest",
  ListTaskPushNotificationConfigs: "v1.0#/$defs/ListTaskPushNotificationConfigsRequest",
  DeleteTaskPushNotificationConfig: "v1.0#/$defs/DeleteTaskPushNotificationConfigRequest",
  GetExtendedAgentCard: "v1.0#/$defs/GetExtendedAgentCardRequest",
};

export const v10: Dialect = {
  name: "v1.0",
  methods: METHODS,
  streamStartsWithTask: true,
  finishedResubscribe: "unsupported",
  clientNamesTasks: false,

  paramsSchemaId: schemaIdLookup(SCHEMA_IDS),

  toSendRequest(params): SendRequest {
    const p = params as V10SendMessageRequest;
    const push = p.configuration?.taskPushNotificationConfig;
    return sendRequestOf(messageFromV10(p.message), {
      metadata: p.metadata,
      historyLength: p.configuration?.historyLength,
      pushNotification: push && pushConfigFromV10(push),
    });
  },

  returnsImmediately: (params) => (params as V10SendMessageRequest).configuration?.returnImmediately === true,

  toTaskRef: taskRefOf,

  /** Create: a TaskPushNotificationConfig (taskId, url, id?); Get/Delete: {taskId, id}; List: {taskId}. */
  toPushRef(params): PushRef {
    const p = params as Partial<V10TaskPushNotificationConfig> & { taskId: string };
    const config = p.url !== undefined ? pushConfigFromV10(p as V10TaskPushNotificationConfig) : undefined;
    const configId = nonEmpty(p.id);
    return { taskId: p.taskId, ...(configId !== undefined && { configId }), ...(config && { config }) };
  },

  toListQuery(params): ListQuery {
    const p = (params ?? {}) as V10ListTasksRequest;
    const state = p.status && p.status !== "TASK_STATE_UNSPECIFIED" ? stateFromV10(p.status) : undefined;
    return {
      ...(nonEmpty(p.contextId) && { contextId: p.contextId }),
      ...(state && { state }),
      ...(p.pageSize !== undefined && { pageSize: p.pageSize }),
      ...(nonEmpty(p.pageToken) && { pageToken: p.pageToken }),
      ...(p.historyLength !== undefined && { historyLength: p.historyLength }),
      ...(p.includeArtifacts !== undefined && { includeArtifacts: p.includeArtifacts }),
      ...(p.statusTimestampAfter !== undefined && { statusTimestampAfter: p.statusTimestampAfter }),
    };
  },

  renderTask: (task, historyLength) => taskToV10(task, { historyLength }),
  renderSendResult: (task, historyLength) => ({ task: taskToV10(task, { historyLength }) }),
  renderStreamStart: (task) => ({ task: taskToV10(task) }),
  renderEvent: eventToV10,
  /**
   * The turn's last status ends the stream: terminal states as the spec says, and input-required too
   * (the next turn is a new SendStreamingMessage), as @a2a-js/sdk's server does.
   */

  /** A listing leaves history out unless asked (historyLength unset = 0 here) and artifacts unless included. */
  renderList: (tasks, nextPageToken, pageSize, historyLength, options) => ({
    tasks: tasks.map((t) =>
      taskToV10(t, { historyLength: historyLength ?? 0, includeArtifacts: options?.includeArtifacts === true }),
    ),
    nextPageToken,
    pageSize,
    totalSize: options?.totalSize ?? tasks.length,
  }),

  renderPushConfig: pushConfigToV10,
  renderPushConfigList: (taskId, configs) => ({
    configs: configs.map((c) => pushConfigToV10(taskId, c)),
    nextPageToken: "",
  }),
  renderPushDeleted: () => ({}),
};
