import type { TaskState } from "../../core/model.js";
import { artifactFromV10, messageToV10, stateToV10, statusFromV10, updatesFromV10, v10, v10Upstream } from "../../dialects/index.js";
import type { V10Task } from "../../dialects/index.js";
import { callsOf, pushConfigOf, taskCalls, type WireDialect } from "./dialect.js";
import type { CliTask, SendInput } from "./model.js";
import { answeredTask, checked, cliEvents, cliTask, readPush, userMessage } from "./read.js";

/**
 * A2A v1.0 (JSON-RPC `SendMessage` & co. with header `A2A-Version: 1.0`; ProtoJSON): the agent names
 * tasks, a stream opens with the Task, a send may be answered by a bare Message, and a stream ends with its
 * turn's last status (v1.0 has no `final`).
 */

function task(t: V10Task): CliTask {
  return cliTask(t.id, t.contextId, statusFromV10(t.status), (t.artifacts ?? []).map(artifactFromV10));
}

const sendParams = (input: SendInput) => ({
  message: messageToV10(userMessage(input)),
  // Blocking is v1.0's default; said anyway so a server with another default still waits for the turn.
  configuration: { returnImmediately: false },
  metadata: input.metadata,
});

const call = callsOf(v10);

export const v10Wire: WireDialect = {
  name: "v1.0",
  headers: { "A2A-Version": "1.0" },
  clientNamesTasks: false,

  ...taskCalls(v10, sendParams),
  list: (q) =>
    call("ListTasks", {
      ...(q.contextId !== undefined && { contextId: q.contextId }),
      ...(q.state !== undefined && { status: stateToV10(q.state as TaskState) }),
      ...(q.pageSize !== undefined && { pageSize: q.pageSize }),
      ...(q.pageToken !== undefined && { pageToken: q.pageToken }),
    }),
  pushSet: (c) => call("CreateTaskPushNotificationConfig", v10.renderPushConfig(c.taskId, pushConfigOf(c))),
  pushGet: (taskId, id) => call("GetTaskPushNotificationConfig", { taskId, ...(id !== undefined && { id }) }),
  pushList: (taskId) => call("ListTaskPushNotificationConfigs", { taskId }),
  pushDelete: (taskId, id) => call("DeleteTaskPushNotificationConfig", { taskId, id }),

  parseSendResult(result) {
    const r = checked("v1.0", "send", result);
    if (r.task) return task(r.task as V10Task);
    return answeredTask(updatesFromV10(r), v10Upstream.upstreamIds?.(r).taskId);
  },
  parseTask: (result) => task(checked<V10Task>("v1.0", "task", result)),
  parseEvent(result) {
    const r = checked("v1.0", "event", result);
    return cliEvents(updatesFromV10(r), v10Upstream.upstreamIds?.(r).taskId);
  },
  parseList(result) {
    const r = checked<{ tasks: V10Task[]; nextPageToken?: string; totalSize?: number }>("v1.0", "task-list", result);
    return {
      tasks: r.tasks.map(task),
      ...(r.nextPageToken && { nextPageToken: r.nextPageToken }),
      ...(r.totalSize !== undefined && { totalSize: r.totalSize }),
    };
  },
  parsePush: (result) => readPush(v10, result),
  parsePushList: (result) => checked<{ configs: unknown[] }>("v1.0", "push-list", result).configs.map((c) => readPush(v10, c)),
};
