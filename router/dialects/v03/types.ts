import type { Metadata, TaskState } from "../../core/model.js";

/**
 * The A2A v0.3 wire shapes (JSON-RPC `message/send` & co.): every object says what it is in `kind`
 * ("text" | "file" | "data" parts, "message", "task", "status-update", "artifact-update"); status events
 * carry `final`. Written from reference/a2a-v0.3.0.schema.json; translate.ts maps them to the internal model.
 */

export type V03Part =
  | { kind: "text"; text: string; metadata?: Metadata }
  | { kind: "file"; file: { bytes?: string; uri?: string; name?: string; mimeType?: string }; metadata?: Metadata }
  | { kind: "data"; data: Record<string, unknown>; metadata?: Metadata };

export interface V03Message {
  kind: "message";
  messageId: string;
  role: "user" | "agent";
  parts: V03Part[];
  contextId?: string;
  taskId?: string;
  metadata?: Metadata;
  extensions?: string[];
  referenceTaskIds?: string[];
}

export interface V03TaskStatus {
  state: TaskState;
  message?: V03Message;
  timestamp?: string;
}

export interface V03Artifact {
  artifactId: string;
  name?: string;
  description?: string;
  parts: V03Part[];
  metadata?: Metadata;
  extensions?: string[];
}

export interface V03Task {
  kind: "task";
  id: string;
  contextId: string;
  status: V03TaskStatus;
  artifacts?: V03Artifact[];
  history?: V03Message[];
  metadata?: Metadata;
}

export interface V03StatusUpdateEvent {
  kind: "status-update";
  taskId: string;
  contextId: string;
  status: V03TaskStatus;
  final: boolean;
  metadata?: Metadata;
}

export interface V03ArtifactUpdateEvent {
  kind: "artifact-update";
  taskId: string;
  contextId: string;
  artifact: V03Artifact;
  append?: boolean;
  lastChunk?: boolean;
  metadata?: Metadata;
}

export interface V03PushNotificationConfig {
  id?: string;
  url: string;
  token?: string;
  authentication?: { schemes: string[]; credentials?: string };
}

export interface V03TaskPushNotificationConfig {
  taskId: string;
  pushNotificationConfig: V03PushNotificationConfig;
}

export interface V03MessageSendConfiguration {
  acceptedOutputModes?: string[];
  blocking?: boolean;
  historyLength?: number;
  pushNotificationConfig?: V03PushNotificationConfig;
}

export interface V03MessageSendParams {
  message: V03Message;
  configuration?: V03MessageSendConfiguration;
  metadata?: Metadata;
}
