import type { Metadata } from "../../core/model.js";

/**
 * The A2A v1.0 wire shapes (JSON-RPC `SendMessage` & co., header `A2A-Version: 1.0`): the ProtoJSON
 * mapping of lf.a2a.v1 (reference/a2a-v1.0.1.proto). camelCase members; enums by name
 * (`TASK_STATE_WORKING`, `ROLE_USER`); oneofs by which member is present: a Part is `{text}` | `{raw}` |
 * `{url}` | `{data}` (with optional `filename`, `mediaType`, `metadata`), a stream event is `{task}` |
 * `{message}` | `{statusUpdate}` | `{artifactUpdate}`. There is no `kind` and no `final`: a stream ends
 * with its turn's last status. translate.ts maps them to the internal model.
 */

export type V10TaskState =
  | "TASK_STATE_UNSPECIFIED"
  | "TASK_STATE_SUBMITTED"
  | "TASK_STATE_WORKING"
  | "TASK_STATE_COMPLETED"
  | "TASK_STATE_FAILED"
  | "TASK_STATE_CANCELED"
  | "TASK_STATE_INPUT_REQUIRED"
  | "TASK_STATE_REJECTED"
  | "TASK_STATE_AUTH_REQUIRED";
export type V10Role = "ROLE_USER" | "ROLE_AGENT";

export interface V10Part {
  text?: string;
  /** base64 bytes */
  raw?: string;
  url?: string;
  data?: unknown;
  metadata?: Metadata;
  filename?: string;
  mediaType?: string;
}

export interface V10Message {
  messageId: string;
  role: V10Role;
  parts: V10Part[];
  contextId?: string;
  taskId?: string;
  metadata?: Metadata;
  extensions?: string[];
  referenceTaskIds?: string[];
}

export interface V10TaskStatus {
  state: V10TaskState;
  message?: V10Message;
  timestamp?: string;
}

export interface V10Artifact {
  artifactId: string;
  name?: string;
  description?: string;
  parts: V10Part[];
  metadata?: Metadata;
  extensions?: string[];
}

export interface V10Task {
  id: string;
  contextId: string;
  status: V10TaskStatus;
  artifacts?: V10Artifact[];
  history?: V10Message[];
  metadata?: Metadata;
}

export interface V10StatusUpdate {
  taskId: string;
  contextId: string;
  status: V10TaskStatus;
  metadata?: Metadata;
}

export interface V10ArtifactUpdate {
  taskId: string;
  contextId: string;
  artifact: V10Artifact;
  append?: boolean;
  lastChunk?: boolean;
  metadata?: Metadata;
}

/** StreamResponse (and, with task|message only, SendMessageResponse): exactly one member is set. */
export type V10StreamResponse = { task: V10Task } | { message: V10Message } | { statusUpdate: V10StatusUpdate } | { artifactUpdate: V10ArtifactUpdate };

export interface V10AuthenticationInfo {
  scheme: string;
  credentials?: string;
}

export interface V10TaskPushNotificationConfig {
  tenant?: string;
  id?: string;
  taskId?: string;
  url: string;
  token?: string;
  authentication?: V10AuthenticationInfo;
}

export interface V10SendMessageConfiguration {
  acceptedOutputModes?: string[];
  taskPushNotificationConfig?: V10TaskPushNotificationConfig;
  historyLength?: number;
  returnImmediately?: boolean;
}

export interface V10SendMessageRequest {
  tenant?: string;
  message: V10Message;
  configuration?: V10SendMessageConfiguration;
  metadata?: Metadata;
}

export interface V10ListTasksRequest {
  tenant?: string;
  contextId?: string;
  status?: V10TaskState;
  pageSize?: number;
  pageToken?: string;
  historyLength?: number;
  statusTimestampAfter?: string;
  includeArtifacts?: boolean;
}
