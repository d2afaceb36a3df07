import type { TaskState } from "../../core/model.js";
import type { ClientCodec, ClientTask } from "../shared/client-codec.js";
import { answeredTask, callsOf, checked, clientEvents, clientTask, idsOf, pushConfigOf, readPush } from "../shared/client-read.js";
import { isRecord } from "../shared/translate-helpers.js";
import type { UpstreamIds } from "../shared/upstream-protocol.js";
import { v10 } from "./client.js";
import { artifactFromV10, messageToV10, stateToV10, statusFromV10, updatesFromV10 } from "./translate.js";
import type { V10SendMessageRequest, V10Task } from "./types.js";

/** Sent on every v1.0 call: v1.0 servers read a request without it as 0.3 (spec 3.6.2) and may refuse it. */
export const V10_HEADERS: Readonly<Record<string, string>> = { "A2A-Version": "1.0" };

/** The ids a v1.0 result names, in whichever StreamResponse member is set: `task.id`, or `taskId` on the others. */
export function v10ResultIds(result: unknown): UpstreamIds {
  if (!isRecord(result)) return {};
  const inner = [result.task, result.statusUpdate, result.artifactUpdate, result.message].find(isRecord);
  if (!inner) return {};
  return idsOf(isRecord(result.task) ? inner.id : inner.taskId, inner.contextId);
}

function task(t: V10Task): ClientTask {
  return clientTask(t.id, t.contextId, statusFromV10(t.status), (t.artifacts ?? []).map(artifactFromV10));
}

/** A SendMessageRequest that waits for the turn. */
export function v10SendParams(message: Parameters<ClientCodec["send"]>[0], metadata: Parameters<ClientCodec["send"]>[1]): V10SendMessageRequest {
  return {
    message: messageToV10(message),
    // Blocking is v1.0's default; said anyway so a server with another default still waits for the turn.
    configuration: { returnImmediately: false },
    metadata,
  };
}

/** A ListTasksRequest's members, as the JSON-RPC params or the HTTP+JSON query. */
export function v10ListParams(q: Parameters<NonNullable<ClientCodec["list"]>>[0]): Record<string, string | number> {
  return {
    ...(q.contextId !== undefined && { contextId: q.contextId }),
    ...(q.state !== undefined && { status: stateToV10(q.state as TaskState) }),
    ...(q.pageSize !== undefined && { pageSize: q.pageSize }),
    ...(q.pageToken !== undefined && { pageToken: q.pageToken }),
  };
}

const call = callsOf(v10, V10_HEADERS);

/**
 * The client of A2A v1.0 over JSON-RPC (`SendMessage` & co.; ProtoJSON): the agent names tasks, a stream
 * opens with the Task, a send may be answered by a bare Message, and a stream ends with its turn's last
 * status (v1.0 has no `final`). Its answers are the HTTP+JSON binding's too (rest-codec.ts).
 */
export const v10Codec: ClientCodec = {
  dialect: "v1.0",
  binding: "JSONRPC",
  clientNamesTasks: false,

  send: (message, metadata, streaming) => call(streaming ? "SendStreamingMessage" : "SendMessage", v10SendParams(message, metadata)),
  resubscribe: (id) => call("SubscribeToTask", { id }),
  get: (id) => call("GetTask", { id }),
  cancel: (id) => call("CancelTask", { id }),
  list: (q) => call("ListTasks", v10ListParams(q)),
  pushSet: (c) => call("CreateTaskPushNotificationConfig", v10.renderPushConfig(c.taskId, pushConfigOf(c))),
  pushGet: (taskId, id) => call("GetTaskPushNotificationConfig", { taskId, ...(id !== undefined && { id }) }),
  pushList: (taskId) => call("ListTaskPushNotificationConfigs", { taskId }),
  pushDelete: (taskId, id) => call("DeleteTaskPushNotificationConfig", { taskId, id }),

  readSend(result) {
    const r = checked("v1.0", "send", result);
    if (r.task) return task(r.task as V10Task);
    return answeredTask(updatesFromV10(r), v10ResultIds(r).taskId);
  },
  readTask: (result) => task(checked<V10Task>("v1.0", "task", result)),
  readEvent(result) {
    const r = checked("v1.0", "event", result);
    return clientEvents(updatesFromV10(r), v10ResultIds(r).taskId);
  },
  readList(result) {
    const r = checked<{ tasks: V10Task[]; nextPageToken?: string; totalSize?: number }>("v1.0", "task-list", result);
    return {
      tasks: r.tasks.map(task),
      ...(r.nextPageToken && { nextPageToken: r.nextPageToken }),
      ...(r.totalSize !== undefined && { totalSize: r.totalSize }),
    };
  },
  readPush: (result) => readPush(v10, result),
  readPushList: (result) => checked<{ configs: unknown[] }>("v1.0", "push-list", result).configs.map((c) => readPush(v10, c)),
};
