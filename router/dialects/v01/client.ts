import { randomUUID } from "node:crypto";
import type { PushNotificationConfig, SendRequest } from "../../core/model.js";
import { throwIfRejected } from "../shared/agent-answer.js";
import type { Dialect, PushRef, TaskRef } from "../shared/dialect.js";
import { eventToV01, messageFromV01, taskToV01, type V01Message } from "./wire.js";

/**
 * The client side of A2A v0.1: its JSON-RPC methods, how their params read and how results and stream
 * events are written. The client names its tasks (`id`, `sessionId`).
 */

const METHODS = {
  "tasks/send": "SendMessage",
  "tasks/sendSubscribe": "SendStreamingMessage",
  "tasks/resubscribe": "SubscribeToTask",
  "task/resubscribe": "SubscribeToTask",
  "tasks/get": "GetTask",
  "tasks/cancel": "CancelTask",
  "tasks/pushNotification/set": "CreateTaskPushNotificationConfig",
  "tasks/pushNotification/get": "GetTaskPushNotificationConfig",
} as const;

const SCHEMA_IDS: Record<keyof typeof METHODS, string> = {
  "tasks/send": "v0.1#/$defs/TaskSendParams",
  "tasks/sendSubscribe": "v0.1#/$defs/TaskSendParams",
  "tasks/resubscribe": "v0.1#/$defs/TaskQueryParams",
  "task/resubscribe": "v0.1#/$defs/TaskQueryParams",
  "tasks/get": "v0.1#/$defs/TaskQueryParams",
  "tasks/cancel": "v0.1#/$defs/TaskIdParams",
  "tasks/pushNotification/set": "v0.1#/$defs/TaskPushNotificationConfig",
  "tasks/pushNotification/get": "v0.1#/$defs/TaskIdParams",
};

interface V01TaskSendParams {
  id: string;
  sessionId?: string;
  message: V01Message;
  metadata?: Record<string, unknown>;
  historyLength?: number;
  pushNotification?: PushNotificationConfig;
}

/** The members a push config defines, and only those: nothing else a client sends is stored. */
function pushConfigFromV01(c: PushNotificationConfig): PushNotificationConfig {
  return {
    url: c.url,
    ...(c.id !== undefined && { id: c.id }),
    ...(c.token !== undefined && { token: c.token }),
    ...(c.authentication && {
      authentication: {
        schemes: [...c.authentication.schemes],
        ...(c.authentication.credentials !== undefined && { credentials: c.authentication.credentials }),
      },
    }),
  };
}

/** The v0.1 dialect as the JSON-RPC layer uses it. */
export const v01: Dialect = {
  name: "v0.1",
  methods: METHODS,
  streamStartsWithTask: false,
  idFields: {
    taskId: "id",
    contextId: "sessionId",
    messageId: "message.messageId",
    pushId: "pushNotification.id",
    pushSetId: "pushNotificationConfig.id",
  },
  paramsSchemaId: (method) => SCHEMA_IDS[method as keyof typeof METHODS]!,

  toSendRequest(params): SendRequest {
    const p = params as V01TaskSendParams;
    return {
      taskId: p.id,
      contextId: p.sessionId,
      message: { ...messageFromV01(p.message), messageId: randomUUID() },
      metadata: p.metadata ?? {},
      historyLength: p.historyLength,
      pushNotification: p.pushNotification && pushConfigFromV01(p.pushNotification),
    };
  },

  toTaskRef(params): TaskRef {
    const p = params as { id: string; historyLength?: number };
    return { taskId: p.id, historyLength: p.historyLength };
  },

  toPushRef(params): PushRef {
    const p = params as { id: string; pushNotificationConfig?: PushNotificationConfig };
    return { taskId: p.id, ...(p.pushNotificationConfig && { config: pushConfigFromV01(p.pushNotificationConfig) }) };
  },

  renderTask: taskToV01,
  /** The task; an error when its agent rejected the request. */
  renderSendResult(task) {
    throwIfRejected(task);
    return taskToV01(task);
  },
  renderEvent: eventToV01,
  renderPushConfig: (taskId, config) => ({ id: taskId, pushNotificationConfig: config }),
};
