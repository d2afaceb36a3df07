import { randomUUID } from "node:crypto";
import { type WireDialect, WireError } from "./dialect.js";
import {
  type CliArtifact,
  type CliEvent,
  type CliMessage,
  type CliPart,
  type CliPushConfig,
  type CliTask,
  isRecord,
  record,
  type SendInput,
  str,
  taskEvents,
  TURN_END_STATES,
} from "./model.js";

/**
 * A2A v0.3 (`message/send`, `message/stream`, `tasks/*`; `kind` on every object): the agent names tasks,
 * a stream may open with the Task, and a send may be answered by a bare Message.
 */

function part(p: unknown): CliPart {
  const r = record(p) ?? {};
  return {
    kind: String(r.kind ?? "text"),
    ...(typeof r.text === "string" && { text: r.text }),
    ...(isRecord(r.file) && { file: r.file as CliPart["file"] }),
    ...("data" in r && { data: r.data }),
  };
}

function message(m: unknown): CliMessage | undefined {
  const r = record(m);
  if (!r) return undefined;
  return { role: r.role === "user" ? "user" : "agent", parts: Array.isArray(r.parts) ? r.parts.map(part) : [] };
}

function status(s: unknown): CliTask["status"] {
  const r = record(s);
  if (!r || typeof r.state !== "string") throw new WireError("v0.3", "TaskStatus");
  const m = message(r.message);
  return { state: r.state, ...(m && { message: m }) };
}

function artifact(a: unknown): CliArtifact {
  const r = record(a) ?? {};
  return {
    artifactId: str(r.artifactId) ?? "",
    ...(str(r.name) && { name: r.name as string }),
    parts: Array.isArray(r.parts) ? r.parts.map(part) : [],
  };
}

function task(result: unknown): CliTask {
  const r = record(result);
  if (!r || r.kind === "message") {
    // A bare Message answers the turn: it is the answer of a completed exchange without a task.
    const m = message(r);
    if (!m) throw new WireError("v0.3", "Task or Message");
    return { id: str(r?.taskId) ?? "", status: { state: "completed", message: m }, artifacts: [] };
  }
  return {
    id: str(r.id) ?? "",
    ...(str(r.contextId) && { contextId: r.contextId as string }),
    status: status(r.status),
    artifacts: Array.isArray(r.artifacts) ? r.artifacts.map(artifact) : [],
  };
}

function event(result: unknown): CliEvent[] {
  const r = record(result);
  if (!r) throw new WireError("v0.3", "stream event");
  const metadata = record(r.metadata);
  const taskId = str(r.taskId);
  switch (r.kind) {
    case "task":
    case "message":
      return taskEvents(task(r));
    case "artifact-update":
      return [{
        kind: "artifact",
        ...(taskId && { taskId }),
        artifact: artifact(r.artifact),
        append: r.append === true,
        lastChunk: r.lastChunk !== false,
        ...(metadata && { metadata }),
      }];
    case "status-update": {
      const s = status(r.status);
      return [{ kind: "status", ...(taskId && { taskId }), status: s, final: r.final === true || TURN_END_STATES.has(s.state), ...(metadata && { metadata }) }];
    }
    default:
      throw new WireError("v0.3", "stream event");
  }
}

function sendParams(input: SendInput) {
  return {
    message: {
      kind: "message",
      messageId: randomUUID(),
      role: "user",
      parts: [{ kind: "text", text: input.text }],
      ...(input.taskId !== undefined && { taskId: input.taskId }),
      ...(input.sessionId !== undefined && { contextId: input.sessionId }),
    },
    // v0.3 servers (the SDK's among them) answer at once unless asked to block; send waits for the turn.
    configuration: { blocking: true },
    metadata: input.metadata,
  };
}

function pushConfig(result: unknown): CliPushConfig {
  const r = record(result);
  const c = record(r?.pushNotificationConfig);
  if (!r || !c || typeof c.url !== "string") throw new WireError("v0.3", "TaskPushNotificationConfig");
  return {
    taskId: String(r.taskId ?? ""),
    url: c.url,
    ...(str(c.id) && { id: c.id as string }),
    ...(str(c.token) && { token: c.token as string }),
  };
}

export const v03Wire: WireDialect = {
  name: "v0.3",
  headers: { "A2A-Version": "0.3" },
  clientNamesTasks: false,

  send: (input) => ({ method: "message/send", params: sendParams(input) }),
  stream: (input) => ({ method: "message/stream", params: sendParams(input) }),
  resubscribe: (id) => ({ method: "tasks/resubscribe", params: { id } }),
  get: (id) => ({ method: "tasks/get", params: { id } }),
  cancel: (id) => ({ method: "tasks/cancel", params: { id } }),
  pushSet: (c) => ({
    method: "tasks/pushNotificationConfig/set",
    params: {
      taskId: c.taskId,
      pushNotificationConfig: { url: c.url, ...(c.id !== undefined && { id: c.id }), ...(c.token !== undefined && { token: c.token }) },
    },
  }),
  pushGet: (id, configId) => ({
    method: "tasks/pushNotificationConfig/get",
    params: { id, ...(configId !== undefined && { pushNotificationConfigId: configId }) },
  }),
  pushList: (id) => ({ method: "tasks/pushNotificationConfig/list", params: { id } }),
  pushDelete: (id, configId) => ({ method: "tasks/pushNotificationConfig/delete", params: { id, pushNotificationConfigId: configId } }),

  parseSendResult: task,
  parseTask: task,
  parseEvent: event,
  parsePush: pushConfig,
  parsePushList(result) {
    if (!Array.isArray(result)) throw new WireError("v0.3", "list of TaskPushNotificationConfig");
    return result.map(pushConfig);
  },
};
