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
import type { Dialect, OutboundEvent, PushRef } from "./dialect.js";
import { historyWindow, invalidAgentResult, isRecord, nonEmpty, someMetadata } from "./parts.js";

export type { MessageScope } from "./common.js";

/**
 * A2A v0.3 (JSON-RPC `message/send` & co.): every object says what it is in `kind` ("text" | "file" |
 * "data" parts, "message", "task", "status-update", "artifact-update"); status events carry `final`.
 * The internal model follows v0.3 naming, so this is mostly a matter of adding `kind`s, filling the
 * members v0.3 requires (messageId) and dropping the ones it does not know. Both directions live here:
 * the client side (the Dialect) and the agent side (router/upstream/protocols/v03.ts) use these.
 */

export type V03Part =
  | { kind: "text"; text: string; metadata?: Metadata }
  | { kind: "file"; file: { bytes?: string; uri?: string; name?: string; mimeType?: string }; metadata?: Metadata }
  | { kind: "data"; data: Record<string, unknown>; metadata?: Metadata };

export interface V03Message {
  kind: "message";
  messageId: string;
  role: "user" | "agent";
  parts: V03Part[];
  contextId?: string;
  taskId?: string;
  metadata?: Metadata;
  extensions?: string[];
  referenceTaskIds?: string[];
}

export interface V03TaskStatus {
  state: TaskState;
  message?: V03Message;
  timestamp?: string;
}

export interface V03Artifact {
  artifactId: string;
  name?: string;
  description?: string;
  parts: V03Part[];
  metadata?: Metadata;
  extensions?: string[];
}

export interface V03Task {
  kind: "task";
  id: string;
  contextId: string;
  status: V03TaskStatus;
  artifacts?: V03Artifact[];
  history?: V03Message[];
  metadata?: Metadata;
}

export interface V03StatusUpdateEvent {
  kind: "status-update";
  taskId: string;
  contextId: string;
  status: V03TaskStatus;
  final: boolean;
  metadata?: Metadata;
}

export interface V03ArtifactUpdateEvent {
  kind: "artifact-update";
  taskId: string;
  contextId: string;
  artifact: V03Artifact;
  append?: boolean;
  lastChunk?: boolean;
  metadata?: Metadata;
}

export interface V03PushNotificationConfig {
  id?: string;
  url: string;
  token?: string;
  authentication?: { schemes: string[]; credentials?: string };
}

export interface V03TaskPushNotificationConfig {
  taskId: string;
  pushNotificationConfig: V03PushNotificationConfig;
}

export interface V03MessageSendConfiguration {
  acceptedOutputModes?: string[];
  blocking?: boolean;
  historyLength?: number;
  pushNotificationConfig?: V03PushNotificationConfig;
}

export interface V03MessageSendParams {
  message: V03Message;
  configuration?: V03MessageSendConfiguration;
  metadata?: Metadata;
}

// ---- parts, messages, artifacts -------------------------------------------------------------------

export function partFromV03(p: V03Part): Part {
  const meta = p.metadata && { metadata: p.metadata };
  if (p.kind === "file") {
    const f = p.file;
    return {
      kind: "file",
      file: {
        ...(f.name !== undefined && { name: f.name }),
        ...(f.mimeType !== undefined && { mimeType: f.mimeType }),
        ...(f.bytes !== undefined && { bytes: f.bytes }),
        ...(f.uri !== undefined && { uri: f.uri }),
      },
      ...meta,
    };
  }
  if (p.kind === "data") return { kind: "data", data: p.data, ...meta };
  return { kind: "text", text: p.text, ...meta };
}

export function partToV03(p: Part): V03Part {
  const meta = p.metadata && { metadata: p.metadata };
  if (p.kind === "file") return { kind: "file", file: { ...p.file }, ...meta };
  if (p.kind === "data") return { kind: "data", data: p.data, ...meta };
  return { kind: "text", text: p.text, ...meta };
}

export function messageFromV03(m: V03Message): Message {
  return {
    role: m.role,
    parts: m.parts.map(partFromV03),
    messageId: m.messageId,
    ...(nonEmpty(m.taskId) && { taskId: m.taskId }),
    ...(nonEmpty(m.contextId) && { contextId: m.contextId }),
    ...(m.metadata && { metadata: m.metadata }),
  };
}

export function messageToV03(m: Message, scope: MessageScope = {}): V03Message {
  const { messageId, ...where } = scopeMessage(m, scope);
  return {
    kind: "message",
    messageId,
    role: m.role,
    parts: m.parts.map(partToV03),
    ...where,
    ...(m.metadata && { metadata: m.metadata }),
  };
}

export function artifactFromV03(a: V03Artifact): Artifact {
  return mapArtifactParts(a, partFromV03);
}

export function artifactToV03(a: Artifact): V03Artifact {
  return mapArtifactParts(a, partToV03);
}

// ---- status, tasks, events ------------------------------------------------------------------------

export function statusFromV03(s: V03TaskStatus): TaskStatus {
  return mapStatus(s, s.state, messageFromV03);
}

export function statusToV03(s: TaskStatus, scope: MessageScope): V03TaskStatus {
  return mapStatus(s, s.state, (m) => messageToV03(m, scope));
}

/** A Task as v0.3 writes it. `historyLength` follows A2A: unset = all, 0 = none, N = the last N. */
export function taskToV03(task: Task, historyLength?: number): V03Task {
  const scope = { taskId: task.id, contextId: task.contextId };
  const history = historyWindow(task.history, historyLength);
  const metadata = someMetadata(task.metadata);
  return {
    kind: "task",
    id: task.id,
    contextId: task.contextId,
    status: statusToV03(task.status, scope),
    artifacts: task.artifacts.map(artifactToV03),
    ...(history && { history: history.map((m) => messageToV03(m, scope)) }),
    ...(metadata && { metadata }),
  };
}

export function eventToV03(event: OutboundEvent): V03StatusUpdateEvent | V03ArtifactUpdateEvent {
  const meta = event.metadata && { metadata: event.metadata };
  if (event.kind === "artifact") {
    return {
      kind: "artifact-update",
      taskId: event.taskId,
      contextId: event.contextId,
      artifact: artifactToV03(event.artifact),
      ...(event.append !== undefined && { append: event.append }),
      ...(event.lastChunk !== undefined && { lastChunk: event.lastChunk }),
      ...meta,
    };
  }
  return {
    kind: "status-update",
    taskId: event.taskId,
    contextId: event.contextId,
    status: statusToV03(event.status, { taskId: event.taskId, contextId: event.contextId }),
    final: event.final,
    ...meta,
  };
}

/**
 * What a v0.3 agent's result or stream event says, as internal updates (agent side). A Task becomes its
 * artifacts then its status; a bare Message (an agent answering without a task) becomes a completed
 * status carrying it. Anything else is an invalid agent response.
 */
export function updatesFromV03(result: unknown): AgentUpdate[] {
  if (!isRecord(result)) throw invalidAgentResult("v0.3", result);
  switch (result.kind) {
    case "status-update": {
      const e = result as unknown as V03StatusUpdateEvent;
      const final = typeof e.final === "boolean" ? e.final : undefined;
      return [statusUpdate(statusFromV03(e.status), e.metadata, final)];
    }
    case "artifact-update": {
      const e = result as unknown as V03ArtifactUpdateEvent;
      return [artifactUpdate(artifactFromV03(e.artifact), e)];
    }
    case "task": {
      const t = result as unknown as V03Task;
      return taskUpdates((t.artifacts ?? []).map(artifactFromV03), statusFromV03(t.status), t.metadata);
    }
    case "message":
      return answerUpdates(messageFromV03(result as unknown as V03Message));
    default:
      throw invalidAgentResult("v0.3", result);
  }
}

// ---- push notification configs --------------------------------------------------------------------

export function pushConfigFromV03(c: V03PushNotificationConfig): PushNotificationConfig {
  return {
    url: c.url,
    ...(nonEmpty(c.id) && { id: c.id }),
    ...(nonEmpty(c.token) && { token: c.token }),
    ...(c.authentication && {
      authentication: {
        schemes: [...c.authentication.schemes],
        ...(c.authentication.credentials !== undefined && { credentials: c.authentication.credentials }),
      },
    }),
  };
}

export function pushConfigToV03(taskId: string, c: PushNotificationConfig): V03TaskPushNotificationConfig {
  return {
    taskId,
    pushNotificationConfig: {
      url: c.url,
      ...(c.id !== undefined && { id: c.id }),
      ...(c.token !== undefined && { token: c.token }),
      ...(c.authentication && { authentication: { ...c.authentication, schemes: [...c.authentication.schemes] } }),
    },
  };
}

// ---- the dialect ----------------------------------------------------------------------------------

const METHODS = {
  "message/send": "send",
  "message/stream": "stream",
  "tasks/get": "get",
  "tasks/cancel": "cancel",
  "tasks/resubscribe": "resubscribe",
  "tasks/pushNotificationConfig/set": "push-set",
  "tasks/pushNotificationConfig/get": "push-get",
  "tasks/pushNotificationConfig/list": "push-list",
  "tasks/pushNotificationConfig/delete": "push-delete",
  "agent/getAuthenticatedExtendedCard": "extended-card",
} as const;

const SCHEMA_IDS: Record<keyof typeof METHODS, string> = {
  "message/send": "v0.3#/$defs/MessageSendParams",
  "message/stream": "v0.3#/$defs/MessageSendParams",
  "tasks/get": "v0.3#/$defs/TaskQueryParams",
  "tasks/cancel": "v0.3#/$defs/TaskIdParams",
  "tasks/resubscribe": "v0.3#/$defs/TaskIdParams",
  "tasks/pushNotificationConfig/set": "v0.3#/$defs/TaskPushNotificationConfig",
  "tasks/pushNotificationConfig/get": "v0.3#/$defs/GetTaskPushNotificationConfigParams",
  "tasks/pushNotificationConfig/list": "v0.3#/$defs/ListTaskPushNotificationConfigParams",
  "tasks/pushNotificationConfig/delete": "v0.3#/$defs/DeleteTaskPushNotificationConfigParams",
  "agent/getAuthenticatedExtendedCard": "v0.3#/$defs/EmptyParams",
};

export const v03: Dialect = {
  name: "v0.3",
  methods: METHODS,
  streamStartsWithTask: false,
  finishedResubscribe: "replay",
  clientNamesTasks: false,

  paramsSchemaId: schemaIdLookup(SCHEMA_IDS),

  toSendRequest(params): SendRequest {
    const p = params as V03MessageSendParams;
    const push = p.configuration?.pushNotificationConfig;
    return sendRequestOf(messageFromV03(p.message), {
      metadata: p.metadata,
      historyLength: p.configuration?.historyLength,
      pushNotification: push && pushConfigFromV03(push),
    });
  },

  returnsImmediately: (params) => (params as V03MessageSendParams).configuration?.blocking === false,

  toTaskRef: taskRefOf,

  /** set: {taskId, pushNotificationConfig}; get/list/delete: {id, pushNotificationConfigId?}. */
  toPushRef(params): PushRef {
    const p = params as {
      taskId?: string;
      id?: string;
      pushNotificationConfigId?: string;
      pushNotificationConfig?: V03PushNotificationConfig;
    };
    const config = p.pushNotificationConfig && pushConfigFromV03(p.pushNotificationConfig);
    const configId = nonEmpty(p.pushNotificationConfigId) ?? config?.id;
    return {
      taskId: (p.taskId ?? p.id)!,
      ...(configId !== undefined && { configId }),
      ...(config && { config }),
    };
  },

  renderTask: taskToV03,
  renderSendResult: taskToV03,
  renderEvent: eventToV03,
  renderPushConfig: pushConfigToV03,
  renderPushConfigList: (taskId, configs) => configs.map((c) => pushConfigToV03(taskId, c)),
  renderPushDeleted: () => null,
};
