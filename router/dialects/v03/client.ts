import type { SendRequest } from "../../core/model.js";
import type { Dialect, PushRef } from "../shared/dialect.js";
import { nonEmpty } from "../shared/translate-helpers.js";
import { messageAnswerOf, throwIfRejected } from "../shared/agent-answer.js";
import { schemaIdLookup, sendRequestOf, taskRefOf } from "../shared/v03-v10.js";
import { eventToV03, messageFromV03, messageToV03, pushConfigFromV03, pushConfigToV03, taskToV03 } from "./translate.js";
import type { V03MessageSendParams, V03PushNotificationConfig } from "./types.js";

/** The client side of A2A v0.3: its JSON-RPC methods, how their params read, how results are written. */

const METHODS = {
  "message/send": "SendMessage",
  "message/stream": "SendStreamingMessage",
  "tasks/get": "GetTask",
  "tasks/cancel": "CancelTask",
  "tasks/resubscribe": "SubscribeToTask",
  "tasks/pushNotificationConfig/set": "CreateTaskPushNotificationConfig",
  "tasks/pushNotificationConfig/get": "GetTaskPushNotificationConfig",
  "tasks/pushNotificationConfig/list": "ListTaskPushNotificationConfigs",
  "tasks/pushNotificationConfig/delete": "DeleteTaskPushNotificationConfig",
  "agent/getAuthenticatedExtendedCard": "GetExtendedAgentCard",
} as const;

const SCHEMA_IDS: Record<keyof typeof METHODS, string> = {
  "message/send": "v0.3#/$defs/MessageSendParams",
  "message/stream": "v0.3#/$defs/MessageSendParams",
  "tasks/get": "v0.3#/$defs/TaskQueryParams",
  "tasks/cancel": "v0.3#/$defs/TaskIdParams",
  "tasks/resubscribe": "v0.3#/$defs/TaskIdParams",
  "tasks/pushNotificationConfig/set": "v0.3#/$defs/TaskPushNotificationConfig",
  "tasks/pushNotificationConfig/get": "v0.3#/$defs/GetTaskPushNotificationConfigParams",
  "tasks/pushNotificationConfig/list": "v0.3#/$defs/ListTaskPushNotificationConfigParams",
  "tasks/pushNotificationConfig/delete": "v0.3#/$defs/DeleteTaskPushNotificationConfigParams",
  "agent/getAuthenticatedExtendedCard": "v0.3#/$defs/EmptyParams",
};

/** The v0.3 dialect as the JSON-RPC layer uses it. */
export const v03: Dialect = {
  name: "v0.3",
  methods: METHODS,
  streamStartsWithTask: false,
  idFields: {
    taskId: "message.taskId",
    contextId: "message.contextId",
    messageId: "message.messageId",
    pushId: "configuration.pushNotificationConfig.id",
    pushSetId: "pushNotificationConfig.id",
  },
  finishedResubscribe: "replay",
  clientNamesTasks: false,
  dedupesMessageIds: true,

  paramsSchemaId: schemaIdLookup(SCHEMA_IDS),

  toSendRequest(params): SendRequest {
    const p = params as V03MessageSendParams;
    const push = p.configuration?.pushNotificationConfig;
    return sendRequestOf(messageFromV03(p.message), {
      metadata: p.metadata,
      historyLength: p.configuration?.historyLength,
      pushNotification: push && pushConfigFromV03(push),
    });
  },

  returnsImmediately: (params) => (params as V03MessageSendParams).configuration?.blocking === false,

  toTaskRef: taskRefOf,

  /**
   * set: {taskId, pushNotificationConfig}; get/list/delete: {id, pushNotificationConfigId?} (v0.3 spec 7.6-7.8),
   * where a `taskId` is not theirs and is never read: their schemas check `id` only.
   */
  toPushRef(params, operation): PushRef {
    const p = params as {
      taskId?: string;
      id?: string;
      pushNotificationConfigId?: string;
      pushNotificationConfig?: V03PushNotificationConfig;
    };
    const config = p.pushNotificationConfig && pushConfigFromV03(p.pushNotificationConfig);
    const configId = nonEmpty(p.pushNotificationConfigId) ?? config?.id;
    return {
      taskId: (operation === undefined || operation === "CreateTaskPushNotificationConfig" ? (p.taskId ?? p.id) : p.id)!,
      ...(configId !== undefined && { configId }),
      ...(config && { config }),
    };
  },

  renderTask: taskToV03,
  /** A turn its agent answered with a bare Message is answered with that Message (v0.3 allows either). */
  renderSendResult(task, historyLength) {
    throwIfRejected(task);
    const answer = messageAnswerOf(task);
    return answer ? messageToV03(answer, { contextId: task.contextId }) : taskToV03(task, historyLength);
  },
  renderEvent: eventToV03,
  renderPushConfig: pushConfigToV03,
  renderPushConfigList: (taskId, configs) => configs.map((c) => pushConfigToV03(taskId, c)),
  renderPushDeleted: () => null,
};
