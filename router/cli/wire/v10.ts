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
 * A2A v1.0 (JSON-RPC `SendMessage` & co. with header `A2A-Version: 1.0`; ProtoJSON): enums by name
 * (`TASK_STATE_WORKING`, `ROLE_USER`), oneofs by which member is set (a Part is `{text}` | `{raw}` |
 * `{url}` | `{data}`; a stream event is `{task}` | `{message}` | `{statusUpdate}` | `{artifactUpdate}`),
 * no `kind` and no `final`: a stream ends with its turn's last status.
 */

const STATE_PREFIX = "TASK_STATE_";

/** `TASK_STATE_INPUT_REQUIRED` -> `input-required`. */
export function stateFromV10(state: unknown): string {
  if (typeof state !== "string" || !state.startsWith(STATE_PREFIX)) throw new WireError("v1.0", "TaskState");
  const name = state.slice(STATE_PREFIX.length).toLowerCase().replace(/_/g, "-");
  return name === "unspecified" ? "unknown" : name;
}

/** `input-required` -> `TASK_STATE_INPUT_REQUIRED`. */
export function stateToV10(state: string): string {
  return STATE_PREFIX + state.toUpperCase().replace(/-/g, "_");
}

function part(p: unknown): CliPart {
  const r = record(p) ?? {};
  if (typeof r.text === "string") return { kind: "text", text: r.text };
  if (typeof r.raw === "string" || typeof r.url === "string") {
    return {
      kind: "file",
      file: {
        ...(typeof r.raw === "string" ? { bytes: r.raw } : { uri: r.url as string }),
        ...(str(r.filename) && { name: r.filename as string }),
        ...(str(r.mediaType) && { mimeType: r.mediaType as string }),
      },
    };
  }
  return { kind: "data", data: r.data };
}

function message(m: unknown): CliMessage | undefined {
  const r = record(m);
  if (!r) return undefined;
  return { role: r.role === "ROLE_USER" ? "user" : "agent", parts: Array.isArray(r.parts) ? r.parts.map(part) : [] };
}

function status(s: unknown): CliTask["status"] {
  const r = record(s);
  if (!r) throw new WireError("v1.0", "TaskStatus");
  const m = message(r.message);
  return { state: stateFromV10(r.state), ...(m && { message: m }) };
}

function artifact(a: unknown): CliArtifact {
  const r = record(a) ?? {};
  return {
    artifactId: str(r.artifactId) ?? "",
    ...(str(r.name) && { name: r.name as string }),
    parts: Array.isArray(r.parts) ? r.parts.map(part) : [],
  };
}

function task(t: unknown): CliTask {
  const r = record(t);
  if (!r) throw new WireError("v1.0", "Task");
  return {
    id: str(r.id) ?? "",
    ...(str(r.contextId) && { contextId: r.contextId as string }),
    status: status(r.status),
    artifacts: Array.isArray(r.artifacts) ? r.artifacts.map(artifact) : [],
  };
}

/** A SendMessageResponse: `{task}`, or `{message}` when the agent answered without a task. */
function sendResult(result: unknown): CliTask {
  const r = record(result);
  if (isRecord(r?.task)) return task(r.task);
  const m = message(r?.message);
  if (!m) throw new WireError("v1.0", "SendMessageResponse");
  return { id: str(record(r?.message)?.taskId) ?? "", status: { state: "completed", message: m }, artifacts: [] };
}

function event(result: unknown): CliEvent[] {
  const r = record(result);
  if (!r) throw new WireError("v1.0", "StreamResponse");
  if (isRecord(r.task) || isRecord(r.message)) return taskEvents(sendResult(r));
  if (isRecord(r.statusUpdate)) {
    const u = r.statusUpdate;
    const s = status(u.status);
    const metadata = record(u.metadata);
    return [{ kind: "status", ...(str(u.taskId) && { taskId: u.taskId as string }), status: s, final: TURN_END_STATES.has(s.state), ...(metadata && { metadata }) }];
  }
  if (isRecord(r.artifactUpdate)) {
    const u = r.artifactUpdate;
    const metadata = record(u.metadata);
    return [{
      kind: "artifact",
      ...(str(u.taskId) && { taskId: u.taskId as string }),
      artifact: artifact(u.artifact),
      append: u.append === true,
      lastChunk: u.lastChunk !== false,
      ...(metadata && { metadata }),
    }];
  }
  throw new WireError("v1.0", "StreamResponse");
}

function sendParams(input: SendInput) {
  return {
    message: {
      messageId: randomUUID(),
      role: "ROLE_USER",
      parts: [{ text: input.text }],
      ...(input.taskId !== undefined && { taskId: input.taskId }),
      ...(input.sessionId !== undefined && { contextId: input.sessionId }),
    },
    // Blocking is v1.0's default; said anyway so a server with another default still waits for the turn.
    configuration: { returnImmediately: false },
    metadata: input.metadata,
  };
}

function pushConfig(result: unknown): CliPushConfig {
  const r = record(result);
  if (!r || typeof r.url !== "string") throw new WireError("v1.0", "TaskPushNotificationConfig");
  return { taskId: String(r.taskId ?? ""), url: r.url, ...(str(r.id) && { id: r.id as string }), ...(str(r.token) && { token: r.token as string }) };
}

export const v10Wire: WireDialect = {
  name: "v1.0",
  headers: { "A2A-Version": "1.0" },
  clientNamesTasks: false,

  send: (input) => ({ method: "SendMessage", params: sendParams(input) }),
  stream: (input) => ({ method: "SendStreamingMessage", params: sendParams(input) }),
  resubscribe: (id) => ({ method: "SubscribeToTask", params: { id } }),
  get: (id) => ({ method: "GetTask", params: { id } }),
  cancel: (id) => ({ method: "CancelTask", params: { id } }),
  list: (q) => ({
    method: "ListTasks",
    params: {
      ...(q.contextId !== undefined && { contextId: q.contextId }),
      ...(q.state !== undefined && { status: stateToV10(q.state) }),
      ...(q.pageSize !== undefined && { pageSize: q.pageSize }),
      ...(q.pageToken !== undefined && { pageToken: q.pageToken }),
    },
  }),
  pushSet: (c) => ({
    method: "CreateTaskPushNotificationConfig",
    params: { taskId: c.taskId, url: c.url, ...(c.id !== undefined && { id: c.id }), ...(c.token !== undefined && { token: c.token }) },
  }),
  pushGet: (taskId, id) => ({ method: "GetTaskPushNotificationConfig", params: { taskId, ...(id !== undefined && { id }) } }),
  pushList: (taskId) => ({ method: "ListTaskPushNotificationConfigs", params: { taskId } }),
  pushDelete: (taskId, id) => ({ method: "DeleteTaskPushNotificationConfig", params: { taskId, id } }),

  parseSendResult: sendResult,
  parseTask: task,
  parseEvent: event,
  parseList(result) {
    const r = record(result);
    if (!r || !Array.isArray(r.tasks)) throw new WireError("v1.0", "ListTasksResponse");
    return {
      tasks: r.tasks.map(task),
      ...(str(r.nextPageToken) && { nextPageToken: r.nextPageToken as string }),
      ...(typeof r.totalSize === "number" && { totalSize: r.totalSize }),
    };
  },
  parsePush: pushConfig,
  parsePushList(result) {
    const r = record(result);
    if (!r || !Array.isArray(r.configs)) throw new WireError("v1.0", "ListTaskPushNotificationConfigsResponse");
    return r.configs.map(pushConfig);
  },
};
