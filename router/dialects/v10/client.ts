import type { SendRequest } from "../../core/model.js";
import type { Dialect, ListQuery, PushRef } from "../shared/dialect.js";
import { nonEmpty } from "../shared/translate-helpers.js";
import { messageAnswerOf, throwIfRejected } from "../shared/agent-answer.js";
import { schemaIdLookup, sendRequestOf, taskRefOf } from "../shared/v03-v10.js";
import { readProtoNames } from "./proto-names.js";
import { eventToV10, messageFromV10, messageToV10, pushConfigFromV10, pushConfigToV10, stateFromV10, taskToV10 } from "./translate.js";
import type { V10ListTasksRequest, V10SendMessageRequest, V10TaskPushNotificationConfig } from "./types.js";

/** The client side of A2A v1.0: its JSON-RPC methods, how their params read, how results are written. */

const METHODS = {
  SendMessage: "SendMessage",
  SendStreamingMessage: "SendStreamingMessage",
  GetTask: "GetTask",
  ListTasks: "ListTasks",
  CancelTask: "CancelTask",
  SubscribeToTask: "SubscribeToTask",
  CreateTaskPushNotificationConfig: "CreateTaskPushNotificationConfig",
  GetTaskPushNotificationConfig: "GetTaskPushNotificationConfig",
  ListTaskPushNotificationConfigs: "ListTaskPushNotificationConfigs",
  DeleteTaskPushNotificationConfig: "DeleteTaskPushNotificationConfig",
  GetExtendedAgentCard: "GetExtendedAgentCard",
} as const;

const SCHEMA_IDS: Record<keyof typeof METHODS, string> = {
  SendMessage: "v1.0#/$defs/SendMessageRequest",
  SendStreamingMessage: "v1.0#/$defs/SendMessageRequest",
  GetTask: "v1.0#/$defs/GetTaskRequest",
  ListTasks: "v1.0#/$defs/ListTasksRequest",
  CancelTask: "v1.0#/$defs/CancelTaskRequest",
  SubscribeToTask: "v1.0#/$defs/SubscribeToTaskRequest",
  CreateTaskPushNotificationConfig: "v1.0#/$defs/CreateTaskPushNotificationConfigRequest",
  GetTaskPushNotificationConfig: "v1.0#/$defs/GetTaskPushNotificationConfigRequest",
  ListTaskPushNotificationConfigs: "v1.0#/$defs/ListTaskPushNotificationConfigsRequest",
  DeleteTaskPushNotificationConfig: "v1.0#/$defs/DeleteTaskPushNotificationConfigRequest",
  GetExtendedAgentCard: "v1.0#/$defs/GetExtendedAgentCardRequest",
};

/** The v1.0 dialect as the JSON-RPC layer uses it. */
export const v10: Dialect = {
  name: "v1.0",
  methods: METHODS,
  streamStartsWithTask: true,
  idFields: {
    taskId: "message.taskId",
    contextId: "message.contextId",
    messageId: "message.messageId",
    pushId: "configuration.taskPushNotificationConfig.id",
    pushSetId: "id",
  },
  finishedResubscribe: "unsupported",
  streamFailure: "json",
  clientNamesTasks: false,
  dedupesMessageIds: true,

  paramsSchemaId: schemaIdLookup(SCHEMA_IDS),
  readParams: readProtoNames,

  toSendRequest(params): SendRequest {
    const p = params as V10SendMessageRequest;
    const push = p.configuration?.taskPushNotificationConfig;
    return sendRequestOf(messageFromV10(p.message), {
      metadata: p.metadata,
      historyLength: p.configuration?.historyLength,
      pushNotification: push && pushConfigFromV10(push),
    });
  },

  returnsImmediately: (params) => (params as V10SendMessageRequest).configuration?.returnImmediately === true,

  toTaskRef: taskRefOf,

  /** Create: a TaskPushNotificationConfig (taskId, url, id?); Get/Delete: {taskId, id}; List: {taskId}. */
  toPushRef(params): PushRef {
    const p = params as Partial<V10TaskPushNotificationConfig> & { taskId: string };
    const config = p.url !== undefined ? pushConfigFromV10(p as V10TaskPushNotificationConfig) : undefined;
    const configId = nonEmpty(p.id);
    return { taskId: p.taskId, ...(configId !== undefined && { configId }), ...(config && { config }) };
  },

  toListQuery(params): ListQuery {
    const p = (params ?? {}) as V10ListTasksRequest;
    const state = p.status && p.status !== "TASK_STATE_UNSPECIFIED" ? stateFromV10(p.status) : undefined;
    return {
      ...(nonEmpty(p.contextId) && { contextId: p.contextId }),
      ...(state && { state }),
      ...(p.pageSize !== undefined && { pageSize: p.pageSize }),
      ...(nonEmpty(p.pageToken) && { pageToken: p.pageToken }),
      ...(p.historyLength !== undefined && { historyLength: p.historyLength }),
      ...(p.includeArtifacts !== undefined && { includeArtifacts: p.includeArtifacts }),
      ...(p.statusTimestampAfter !== undefined && { statusTimestampAfter: p.statusTimestampAfter }),
    };
  },

  renderTask: (task, historyLength) => taskToV10(task, { historyLength }),
  /** A SendMessageResponse: `{message}` for a turn its agent answered with a bare Message, else `{task}`. */
  renderSendResult(task, historyLength) {
    throwIfRejected(task);
    const answer = messageAnswerOf(task);
    return answer ? { message: messageToV10(answer, { contextId: task.contextId }) } : { task: taskToV10(task, { historyLength }) };
  },
  renderStreamStart: (task) => ({ task: taskToV10(task) }),
  // The turn's last status ends a stream (the engine decides): terminal states as the spec says, and
  // input-required too (the next turn is a new SendStreamingMessage), as @a2a-js/sdk's server does.
  renderEvent: eventToV10,

  /** A listing leaves history out unless asked (historyLength unset = 0 here) and artifacts unless included. */
  renderList: (tasks, nextPageToken, pageSize, historyLength, options) => ({
    tasks: tasks.map((t) => taskToV10(t, { historyLength: historyLength ?? 0, includeArtifacts: options?.includeArtifacts === true })),
    nextPageToken,
    pageSize,
    totalSize: options?.totalSize ?? tasks.length,
  }),

  renderPushConfig: pushConfigToV10,
  renderPushConfigList: (taskId, configs) => ({
    configs: configs.map((c) => pushConfigToV10(taskId, c)),
    nextPageToken: "",
  }),
  renderPushDeleted: () => ({}),
};
