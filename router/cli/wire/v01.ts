import type { WireDialect } from "./dialect.js";
import { WireError } from "./dialect.js";
import {
  type CliArtifact,
  type CliEvent,
  type CliPart,
  type CliStatus,
  type CliTask,
  isRecord,
  record,
  str,
  taskEvents,
  TURN_END_STATES,
} from "./model.js";

/** A2A v0.1 (`tasks/*`, parts with `type`): the router's own dialect and the seeds'. The client names tasks. */

function part(p: unknown): CliPart {
  const r = record(p) ?? {};
  const kind = String(r.type ?? "text");
  return {
    kind,
    ...(typeof r.text === "string" && { text: r.text }),
    ...(isRecord(r.file) && { file: r.file as CliPart["file"] }),
    ...("data" in r && { data: r.data }),
  };
}

function status(s: unknown): CliStatus {
  const r = record(s);
  if (!r || typeof r.state !== "string") throw new WireError("v0.1", "task status");
  const message = record(r.message);
  return {
    state: r.state,
    ...(message && {
      message: { role: message.role === "user" ? "user" : "agent", parts: Array.isArray(message.parts) ? message.parts.map(part) : [] },
    }),
  };
}

function artifact(a: unknown, fallbackIndex: number): CliArtifact {
  const r = record(a) ?? {};
  const index = typeof r.index === "number" ? r.index : fallbackIndex;
  return {
    // v0.1 artifacts have no id: the index (or the name) says which one a chunk continues.
    artifactId: str(r.name) ?? String(index),
    ...(str(r.name) && { name: r.name as string }),
    parts: Array.isArray(r.parts) ? r.parts.map(part) : [],
  };
}

function task(result: unknown): CliTask {
  const r = record(result);
  if (!r) throw new WireError("v0.1", "Task");
  return {
    id: str(r.id) ?? "",
    ...(str(r.sessionId) && { contextId: r.sessionId as string }),
    status: status(r.status),
    artifacts: Array.isArray(r.artifacts) ? r.artifacts.map(artifact) : [],
  };
}

function event(result: unknown): CliEvent[] {
  const r = record(result);
  if (!r) throw new WireError("v0.1", "stream event");
  const taskId = str(r.id);
  const metadata = record(r.metadata);
  if (isRecord(r.artifact)) {
    return [{
      kind: "artifact",
      ...(taskId && { taskId }),
      artifact: artifact(r.artifact, 0),
      append: r.artifact.append === true,
      lastChunk: r.artifact.lastChunk !== false,
      ...(metadata && { metadata }),
    }];
  }
  if (!("final" in r) && Array.isArray(r.artifacts)) return taskEvents(task(r)); // a Task (a send's answer)
  const s = status(r.status);
  return [{ kind: "status", ...(taskId && { taskId }), status: s, final: r.final === true || TURN_END_STATES.has(s.state), ...(metadata && { metadata }) }];
}

export const v01Wire: WireDialect = {
  name: "v0.1",
  headers: {},
  clientNamesTasks: true,

  send: (input) => ({ method: "tasks/send", params: sendParams(input) }),
  stream: (input) => ({ method: "tasks/sendSubscribe", params: sendParams(input) }),
  resubscribe: (id) => ({ method: "tasks/resubscribe", params: { id } }),
  get: (id) => ({ method: "tasks/get", params: { id } }),
  cancel: (id) => ({ method: "tasks/cancel", params: { id } }),
  pushSet: (c) => ({
    method: "tasks/pushNotification/set",
    params: { id: c.taskId, pushNotificationConfig: { url: c.url, ...(c.token !== undefined && { token: c.token }) } },
  }),
  pushGet: (id) => ({ method: "tasks/pushNotification/get", params: { id } }),

  parseSendResult: task,
  parseTask: task,
  parseEvent: event,
  parsePush(result) {
    const r = record(result);
    const config = record(r?.pushNotificationConfig);
    if (!r || !config || typeof config.url !== "string") throw new WireError("v0.1", "TaskPushNotificationConfig");
    return { taskId: String(r.id ?? ""), url: config.url, ...(str(config.token) && { token: config.token as string }) };
  },
};

function sendParams(input: Parameters<WireDialect["send"]>[0]) {
  return {
    id: input.taskId,
    ...(input.sessionId !== undefined && { sessionId: input.sessionId }),
    message: { role: "user", parts: [{ type: "text", text: input.text }] },
    metadata: input.metadata,
  };
}
