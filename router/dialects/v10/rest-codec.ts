import type { ClientCall } from "../../client/call.js";
import type { ClientCodec } from "../shared/client-codec.js";
import { pushConfigOf } from "../shared/client-read.js";
import { v10 } from "./client.js";
import { V10_HEADERS, v10Codec, v10ListParams, v10SendParams } from "./codec.js";

const task = (taskId: string) => `/tasks/${encodeURIComponent(taskId)}`;
const configs = (taskId: string) => `${task(taskId)}/pushNotificationConfigs`;

/** An HTTP+JSON call: `method` names the operation in messages; the path under the interface URL says it on the wire. */
function rest(method: string, verb: "GET" | "POST" | "DELETE", path: string, params?: unknown): ClientCall {
  return { method, params, path, verb, headers: { ...V10_HEADERS } };
}

/**
 * The client of A2A v1.0 over its HTTP+JSON (REST) binding (spec 11): for an agent whose card offers only
 * that binding, or a config that asks for it (`protocol: "1.0+rest"`).
 *
 * The binding carries the same ProtoJSON objects as v1.0 JSON-RPC (spec 5.1, functional equivalence): a
 * SendMessageRequest body, a SendMessageResponse (`{task}` / `{message}`) back, StreamResponse objects as
 * SSE data. Only the addressing differs (an operation is a verb and a path, spec 11.3) and nothing is
 * wrapped in a JSON-RPC envelope (router/client/binding.ts). So this is the v1.0 JSON-RPC codec with
 * paths: the same params, the same readers.
 */
export const v10RestCodec: ClientCodec = {
  ...v10Codec,
  binding: "HTTP+JSON",

  send: (message, metadata, streaming) =>
    rest(streaming ? "SendStreamingMessage" : "SendMessage", "POST", streaming ? "/message:stream" : "/message:send", v10SendParams(message, metadata)),
  resubscribe: (id) => rest("SubscribeToTask", "POST", `${task(id)}:subscribe`, {}),
  get: (id) => rest("GetTask", "GET", task(id)),
  // The task id is in the path; CancelTaskRequest's other members (tenant, metadata) are optional.
  cancel: (id) => rest("CancelTask", "POST", `${task(id)}:cancel`, {}),
  list(q) {
    const query = new URLSearchParams(Object.entries(v10ListParams(q)).map(([k, v]): [string, string] => [k, String(v)])).toString();
    return rest("ListTasks", "GET", `/tasks${query ? `?${query}` : ""}`);
  },
  pushSet: (c) => rest("CreateTaskPushNotificationConfig", "POST", configs(c.taskId), v10.renderPushConfig(c.taskId, pushConfigOf(c))),
  pushGet: (taskId, id) =>
    id === undefined
      ? rest("ListTaskPushNotificationConfigs", "GET", configs(taskId))
      : rest("GetTaskPushNotificationConfig", "GET", `${configs(taskId)}/${encodeURIComponent(id)}`),
  pushList: (taskId) => rest("ListTaskPushNotificationConfigs", "GET", configs(taskId)),
  pushDelete: (taskId, id) => rest("DeleteTaskPushNotificationConfig", "DELETE", `${configs(taskId)}/${encodeURIComponent(id)}`),
};
