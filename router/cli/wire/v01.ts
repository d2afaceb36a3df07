import type { PushNotificationConfig } from "../../core/model.js";
import { artifactFromV01, messageToV01, statusFromV01, taskUpdates, v01, v01Upstream } from "../../dialects/index.js";
import type { V01Artifact, V01TaskStatus } from "../../dialects/index.js";
import { callsOf, pushConfigOf, taskCalls, type WireDialect } from "./dialect.js";
import { type CliTask, isRecord, type SendInput } from "./model.js";
import { checked, cliEvents, cliPushConfig, cliTask, userMessage } from "./read.js";

/** A2A v0.1 (`tasks/*`, parts with `type`): the router's own dialect and the seeds'. The client names tasks. */

interface V01Task {
  id?: string;
  sessionId?: string | null;
  status: V01TaskStatus;
  artifacts?: V01Artifact[] | null;
}

function task(result: unknown): CliTask {
  const t = checked<V01Task>("v0.1", "task", result);
  return cliTask(t.id, t.sessionId, statusFromV01(t.status), (t.artifacts ?? []).map(artifactFromV01));
}

function sendParams(input: SendInput) {
  return {
    id: input.taskId,
    ...(input.sessionId !== undefined && { sessionId: input.sessionId }),
    message: messageToV01(userMessage(input)),
    metadata: input.metadata,
  };
}

const call = callsOf(v01);

export const v01Wire: WireDialect = {
  name: "v0.1",
  headers: {},
  clientNamesTasks: true,

  ...taskCalls(v01, sendParams),
  // v0.1 has one config per task and no config id.
  pushSet: (c) => call("CreateTaskPushNotificationConfig", v01.renderPushConfig(c.taskId, pushConfigOf({ ...c, id: undefined }))),
  pushGet: (id) => call("GetTaskPushNotificationConfig", { id }),

  parseSendResult: task,
  parseTask: task,
  parseEvent(result) {
    // A blocking send's Task stands in for a stream when the agent does not stream.
    if (isRecord(result) && !("final" in result) && Array.isArray(result.artifacts)) {
      const t = task(result);
      return cliEvents(taskUpdates(t.artifacts, t.status), t.id);
    }
    const r = checked("v0.1", "event", result);
    return cliEvents(v01Upstream.fromStreamResult(r), r.id);
  },
  parsePush(result) {
    const ref = v01.toPushRef(checked("v0.1", "push", result));
    // A config's id is not v0.1's (a router may still show its own "default"): the task names its one config.
    const { id: _id, ...config } = ref.config ?? ({} as PushNotificationConfig);
    return cliPushConfig(ref.taskId, config as PushNotificationConfig);
  },
};
