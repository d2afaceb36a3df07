import type { AgentUpdate, PushNotificationConfig } from "../../core/model.js";
import type { ClientCodec, ClientTask } from "../shared/client-codec.js";
import { callsOf, checked, clientEvents, clientPushConfig, clientTask, pushConfigOf } from "../shared/client-read.js";
import { isRecord } from "../shared/translate-helpers.js";
import { taskUpdates } from "../shared/v03-v10.js";
import { v01 } from "./client.js";
import { artifactFromV01, messageToV01, statusFromV01, type V01Artifact, type V01TaskStatus } from "./wire.js";

/** A v0.1 Task as an agent answers it. */
interface V01Task {
  id?: string;
  sessionId?: string | null;
  status: V01TaskStatus;
  artifacts?: V01Artifact[] | null;
  metadata?: Record<string, unknown>;
}

interface V01StreamEvent {
  status?: V01TaskStatus;
  artifact?: V01Artifact;
  final?: boolean;
  metadata?: Record<string, unknown>;
}

/** One v0.1 stream event (a status or an artifact update) as an internal update. */
export function updatesFromV01Event(result: unknown): AgentUpdate[] {
  const r = (result ?? {}) as V01StreamEvent;
  if (r.artifact) {
    return [
      {
        kind: "artifact",
        artifact: artifactFromV01(r.artifact),
        ...(r.artifact.append !== undefined && { append: r.artifact.append }),
        ...(r.artifact.lastChunk !== undefined && { lastChunk: r.artifact.lastChunk }),
        ...(r.metadata && { metadata: r.metadata }),
      },
    ];
  }
  if (r.status) {
    return [{ kind: "status", status: statusFromV01(r.status), final: r.final === true, ...(r.metadata && { metadata: r.metadata }) }];
  }
  throw new Error("upstream sent an event that is neither a status nor an artifact update");
}

/** A v0.1 Task (a tasks/send result) as internal updates: its artifacts, then its final status. */
export function updatesFromV01Task(result: unknown): AgentUpdate[] {
  const t = (result ?? {}) as V01Task;
  if (!t.status) throw new Error("upstream tasks/send result has no status");
  const out: AgentUpdate[] = (t.artifacts ?? []).map((a) => ({ kind: "artifact", artifact: artifactFromV01(a) }));
  out.push({ kind: "status", status: statusFromV01(t.status), final: true, ...(t.metadata && { metadata: t.metadata }) });
  return out;
}

function task(result: unknown): ClientTask {
  const t = checked<V01Task>("v0.1", "task", result);
  return clientTask(t.id, t.sessionId, statusFromV01(t.status), (t.artifacts ?? []).map(artifactFromV01));
}

const call = callsOf(v01);

/**
 * The client of A2A v0.1 (`tasks/*`, parts with `type`) over JSON-RPC: the router's historic dialect and the
 * seeds'. The client names its tasks (`id`) and sessions (`sessionId`).
 */
export const v01Codec: ClientCodec = {
  dialect: "v0.1",
  binding: "JSONRPC",
  clientNamesTasks: true,

  send: (message, metadata, streaming) =>
    call(streaming ? "SendStreamingMessage" : "SendMessage", {
      id: message.taskId,
      ...(message.contextId !== undefined && { sessionId: message.contextId }),
      message: messageToV01(message),
      metadata,
    }),
  resubscribe: (id) => call("SubscribeToTask", { id }),
  get: (id) => call("GetTask", { id }),
  cancel: (id) => call("CancelTask", { id }),
  // v0.1 has one config per task and no config id.
  pushSet: (c) => call("CreateTaskPushNotificationConfig", v01.renderPushConfig(c.taskId, pushConfigOf({ ...c, id: undefined }))),
  pushGet: (id) => call("GetTaskPushNotificationConfig", { id }),

  readSend: task,
  readTask: task,
  readEvent(result) {
    // A blocking send's Task stands in for a stream when the agent does not stream.
    if (isRecord(result) && !("final" in result) && Array.isArray(result.artifacts)) {
      const t = task(result);
      return clientEvents(taskUpdates(t.artifacts, t.status), t.id);
    }
    const r = checked("v0.1", "event", result);
    return clientEvents(updatesFromV01Event(r), r.id);
  },
  readPush(result) {
    const ref = v01.toPushRef(checked("v0.1", "push", result));
    // A config's id is not v0.1's (a router may still show its own "default"): the task names its one config.
    const { id: _id, ...config } = ref.config ?? ({} as PushNotificationConfig);
    return clientPushConfig(ref.taskId, config as PushNotificationConfig);
  },
};
