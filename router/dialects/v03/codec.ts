import type { UpstreamIds } from "../shared/upstream-protocol.js";
import type { ClientCodec, ClientTask } from "../shared/client-codec.js";
import { answeredTask, callsOf, checked, clientEvents, clientTask, idsOf, pushConfigOf, readPush } from "../shared/client-read.js";
import { isRecord } from "../shared/translate-helpers.js";
import { v03 } from "./client.js";
import { artifactFromV03, messageToV03, statusFromV03, updatesFromV03 } from "./translate.js";
import type { V03MessageSendParams, V03Task } from "./types.js";

/**
 * The task and context ids a v0.3 result names: a Task names itself in `id`; events and messages name
 * their task in `taskId`. Only non-empty strings count (whatever else the agent sent is not an id).
 */
export function v03ResultIds(result: unknown): UpstreamIds {
  if (!isRecord(result)) return {};
  return idsOf(result.kind === "task" ? result.id : result.taskId, result.contextId);
}

function task(result: unknown, kind: "send" | "task"): ClientTask {
  const r = checked("v0.3", kind, result);
  if (r.kind === "message") return answeredTask(updatesFromV03(r), r.taskId);
  const t = r as unknown as V03Task;
  return clientTask(t.id, t.contextId, statusFromV03(t.status), (t.artifacts ?? []).map(artifactFromV03));
}

/** Every v0.3 call says its version: a server that speaks several reads an unmarked request as 0.3 anyway. */
const call = callsOf(v03, { "A2A-Version": "0.3" });

/**
 * The client of A2A v0.3 over JSON-RPC (`message/send`, `message/stream`, `tasks/*`): the agent names
 * tasks, a stream may open with the Task, and a send may be answered by a bare Message.
 */
export const v03Codec: ClientCodec = {
  dialect: "v0.3",
  binding: "JSONRPC",
  clientNamesTasks: false,

  send: (message, metadata, streaming) =>
    call(streaming ? "SendStreamingMessage" : "SendMessage", {
      message: messageToV03(message),
      // v0.3 servers (the SDK's among them) answer at once unless asked to block; a send waits for the turn.
      configuration: { blocking: true },
      metadata,
    } satisfies V03MessageSendParams),
  resubscribe: (id) => call("SubscribeToTask", { id }),
  get: (id) => call("GetTask", { id }),
  cancel: (id) => call("CancelTask", { id }),
  pushSet: (c) => call("CreateTaskPushNotificationConfig", v03.renderPushConfig(c.taskId, pushConfigOf(c))),
  pushGet: (id, configId) => call("GetTaskPushNotificationConfig", { id, ...(configId !== undefined && { pushNotificationConfigId: configId }) }),
  pushList: (id) => call("ListTaskPushNotificationConfigs", { id }),
  pushDelete: (id, configId) => call("DeleteTaskPushNotificationConfig", { id, pushNotificationConfigId: configId }),

  readSend: (result) => task(result, "send"),
  readTask: (result) => task(result, "task"),
  readEvent(result) {
    const r = checked("v0.3", "event", result);
    return clientEvents(updatesFromV03(r), v03ResultIds(r).taskId);
  },
  readPush: (result) => readPush(v03, result),
  readPushList: (result) => checked<unknown[]>("v0.3", "push-list", result).map((c) => readPush(v03, c)),
};
