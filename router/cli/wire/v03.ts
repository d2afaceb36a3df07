import { artifactFromV03, messageToV03, statusFromV03, updatesFromV03, v03, v03Upstream } from "../../dialects/index.js";
import type { V03Task } from "../../dialects/index.js";
import { callsOf, pushConfigOf, taskCalls, type WireDialect } from "./dialect.js";
import type { CliTask, SendInput } from "./model.js";
import { answeredTask, checked, cliEvents, cliTask, readPush, userMessage } from "./read.js";

/**
 * A2A v0.3 (`message/send`, `message/stream`, `tasks/*`): the agent names tasks, a stream may open with
 * the Task, and a send may be answered by a bare Message.
 */

function task(result: unknown, kind: "send" | "task"): CliTask {
  const r = checked("v0.3", kind, result);
  if (r.kind === "message") return answeredTask(updatesFromV03(r), r.taskId);
  const t = r as unknown as V03Task;
  return cliTask(t.id, t.contextId, statusFromV03(t.status), (t.artifacts ?? []).map(artifactFromV03));
}

const sendParams = (input: SendInput) => ({
  message: messageToV03(userMessage(input)),
  // v0.3 servers (the SDK's among them) answer at once unless asked to block; send waits for the turn.
  configuration: { blocking: true },
  metadata: input.metadata,
});

const call = callsOf(v03);

export const v03Wire: WireDialect = {
  name: "v0.3",
  headers: { "A2A-Version": "0.3" },
  clientNamesTasks: false,

  ...taskCalls(v03, sendParams),
  pushSet: (c) => call("CreateTaskPushNotificationConfig", v03.renderPushConfig(c.taskId, pushConfigOf(c))),
  pushGet: (id, configId) => call("GetTaskPushNotificationConfig", { id, ...(configId !== undefined && { pushNotificationConfigId: configId }) }),
  pushList: (id) => call("ListTaskPushNotificationConfigs", { id }),
  pushDelete: (id, configId) => call("DeleteTaskPushNotificationConfig", { id, pushNotificationConfigId: configId }),

  parseSendResult: (result) => task(result, "send"),
  parseTask: (result) => task(result, "task"),
  parseEvent(result) {
    const r = checked("v0.3", "event", result);
    return cliEvents(updatesFromV03(r), v03Upstream.upstreamIds?.(r).taskId);
  },
  parsePush: (result) => readPush(v03, result),
  parsePushList: (result) => checked<unknown[]>("v0.3", "push-list", result).map((c) => readPush(v03, c)),
};
