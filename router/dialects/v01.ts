import { randomUUID } from "node:crypto";
import type { Artifact, Message, Part, PushNotificationConfig, SendRequest, Task } from "../core/model.js";
import type { Dialect, OutboundEvent, PushRef, TaskRef } from "./dialect.js";

/** A2A v0.1 (the seeds' dialect): parts discriminated by `type`, `sessionId`, `final` on status events. */

type V01Part = { type: string; text?: string; file?: unknown; data?: unknown; metadata?: Record<string, unknown> };
type V01Message = { role: "user" | "agent"; parts: V01Part[]; metadata?: Record<string, unknown> };

export function partFromV01(p: V01Part): Part {
  if (p.type === "file") return { kind: "file", file: p.file as never, ...(p.metadata && { metadata: p.metadata }) };
  if (p.type === "data") return { kind: "data", data: p.data as never, ...(p.metadata && { metadata: p.metadata }) };
  return { kind: "text", text: p.text ?? "", ...(p.metadata && { metadata: p.metadata }) };
}

export function partToV01(p: Part): V01Part {
  const meta = p.metadata && { metadata: p.metadata };
  if (p.kind === "file") return { type: "file", file: p.file, ...meta };
  if (p.kind === "data") return { type: "data", data: p.data, ...meta };
  return { type: "text", text: p.text, ...meta };
}

export function messageFromV01(m: V01Message): Message {
  return { role: m.role, parts: m.parts.map(partFromV01), ...(m.metadata && { metadata: m.metadata }) };
}

export function messageToV01(m: Message): V01Message {
  return { role: m.role, parts: m.parts.map(partToV01), ...(m.metadata && { metadata: m.metadata }) };
}

export function artifactFromV01(a: {
  name?: string;
  description?: string;
  parts: V01Part[];
  index?: number;
  metadata?: Record<string, unknown>;
}): Artifact {
  const index = a.index ?? 0;
  return {
    artifactId: `artifact-${index}`,
    index,
    parts: a.parts.map(partFromV01),
    ...(a.name !== undefined && { name: a.name }),
    ...(a.description !== undefined && { description: a.description }),
    ...(a.metadata && { metadata: a.metadata }),
  };
}

function artifactToV01(a: Artifact, position: number, extra?: { append?: boolean; lastChunk?: boolean }) {
  return {
    ...(a.name !== undefined && { name: a.name }),
    ...(a.description !== undefined && { description: a.description }),
    parts: a.parts.map(partToV01),
    index: a.index ?? position,
    ...(extra?.append !== undefined && { append: extra.append }),
    ...(extra?.lastChunk !== undefined && { lastChunk: extra.lastChunk }),
    ...(a.metadata && { metadata: a.metadata }),
  };
}

function statusToV01(status: Task["status"]) {
  return {
    state: status.state,
    ...(status.message && { message: messageToV01(status.message) }),
    ...(status.timestamp && { timestamp: status.timestamp }),
  };
}

function renderTask(task: Task, historyLength?: number) {
  const history = historyLength === undefined ? undefined : historyLength <= 0 ? [] : task.history.slice(-historyLength);
  return {
    id: task.id,
    sessionId: task.contextId,
    status: statusToV01(task.status),
    artifacts: task.artifacts.map((a, i) => artifactToV01(a, i)),
    ...(history && { history: history.map(messageToV01) }),
    metadata: task.metadata,
  };
}

const METHODS = {
  "tasks/send": "send",
  "tasks/sendSubscribe": "stream",
  "tasks/resubscribe": "resubscribe",
  "task/resubscribe": "resubscribe",
  "tasks/get": "get",
  "tasks/cancel": "cancel",
  "tasks/pushNotification/set": "push-set",
  "tasks/pushNotification/get": "push-get",
} as const;

const SCHEMA_IDS: Record<string, string> = {
  "tasks/send": "v0.1#/$defs/TaskSendParams",
  "tasks/sendSubscribe": "v0.1#/$defs/TaskSendParams",
  "tasks/resubscribe": "v0.1#/$defs/TaskQueryParams",
  "task/resubscribe": "v0.1#/$defs/TaskQueryParams",
  "tasks/get": "v0.1#/$defs/TaskQueryParams",
  "tasks/cancel": "v0.1#/$defs/TaskIdParams",
  "tasks/pushNotification/set": "v0.1#/$defs/TaskPushNotificationConfig",
  "tasks/pushNotification/get": "v0.1#/$defs/TaskIdParams",
};

export const v01: Dialect = {
  name: "v0.1",
  methods: METHODS,
  streamStartsWithTask: false,
  paramsSchemaId: (method) => SCHEMA_IDS[method]!,

  toSendRequest(params): SendRequest {
    const p = params as {
      id: string;
      sessionId?: string;
      message: V01Message;
      metadata?: Record<string, unknown>;
      historyLength?: number;
      pushNotification?: PushNotificationConfig;
    };
    return {
      taskId: p.id,
      contextId: p.sessionId,
      message: { ...messageFromV01(p.message), messageId: randomUUID() },
      metadata: p.metadata ?? {},
      historyLength: p.historyLength,
      pushNotification: p.pushNotification,
    };
  },

  toTaskRef(params): TaskRef {
    const p = params as { id: string; historyLength?: number };
    return { taskId: p.id, historyLength: p.historyLength };
  },

  toPushRef(params): PushRef {
    const p = params as { id: string; pushNotificationConfig?: PushNotificationConfig };
    return { taskId: p.id, config: p.pushNotificationConfig };
  },

  renderTask,
  renderSendResult: renderTask,

  renderEvent(event: OutboundEvent) {
    if (event.kind === "artifact") {
      return {
        id: event.taskId,
        artifact: artifactToV01(event.artifact, event.artifact.index ?? 0, {
          append: event.append,
          lastChunk: event.lastChunk,
        }),
        ...(event.metadata && { metadata: event.metadata }),
      };
    }
    return {
      id: event.taskId,
      status: statusToV01(event.status),
      final: event.final,
      ...(event.metadata && { metadata: event.metadata }),
    };
  },


  renderPushConfig: (taskId, config) => ({ id: taskId, pushNotificationConfig: config }),
};
