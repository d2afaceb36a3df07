import {
  MESSAGE_ANSWER_KEY,
  type AgentUpdate,
  type Artifact,
  type Message,
  type Metadata,
  type PushNotificationConfig,
  type SendRequest,
  type TaskStatus,
} from "../../core/model.js";
import { TaskError } from "../../core/errors.js";
import type { Dialect, TaskRef } from "./dialect.js";
import { messageIdOf } from "./translate-helpers.js";

/**
 * What the v0.3 and v1.0 translators share beyond translate-helpers.ts. Both carry the internal model in a shape
 * that differs only in how parts, roles and states are spelled, so the rules around those (where a
 * message sits, which members an artifact or status keeps, how an agent's result becomes updates, how a
 * send or task reference reads) are written once here and each dialect file passes its own spellings.
 */

/**
 * Where a rendered message sits: fills its taskId/contextId when it lacks them, and seeds the stable
 * messageId v0.3 and v1.0 require when the agent gave none (translate-helpers.ts stableId: the same message gets
 * the same id in every event, in tasks/get's status and in its history).
 */
export interface MessageScope {
  taskId?: string;
  contextId?: string;
}

/** A message's messageId (its own or a stable one) and its taskId/contextId, the scope's where it has none. */
export function scopeMessage(m: Message, scope: MessageScope = {}): { messageId: string; contextId?: string; taskId?: string } {
  const taskId = m.taskId ?? scope.taskId;
  const contextId = m.contextId ?? scope.contextId;
  return {
    messageId: messageIdOf(m, taskId ?? contextId ?? ""),
    ...(contextId !== undefined && { contextId }),
    ...(taskId !== undefined && { taskId }),
  };
}

interface ArtifactShape<P> {
  artifactId: string;
  parts: P[];
  name?: string;
  description?: string;
  metadata?: Metadata;
}

/** An artifact with each part translated by `part`; name, description and metadata kept when present. */
export function mapArtifactParts<P, Q>(a: ArtifactShape<P>, part: (p: P) => Q): ArtifactShape<Q> {
  return {
    artifactId: a.artifactId,
    parts: a.parts.map(part),
    ...(a.name !== undefined && { name: a.name }),
    ...(a.description !== undefined && { description: a.description }),
    ...(a.metadata && { metadata: a.metadata }),
  };
}

/** A status in another spelling: `state` already translated, its message by `message`, timestamp kept. */
export function mapStatus<S, M, N>(s: { message?: M; timestamp?: string }, state: S, message: (m: M) => N): { state: S; message?: N; timestamp?: string } {
  return {
    state,
    ...(s.message ? { message: message(s.message) } : undefined),
    ...(s.timestamp && { timestamp: s.timestamp }),
  };
}

// ---- agent side: results as internal updates --------------------------------------------------------

/** A status update from an agent; `final` only when the dialect has one (v0.3). */
export function statusUpdate(status: TaskStatus, metadata?: Metadata, final?: boolean): AgentUpdate {
  return { kind: "status", status, ...(final !== undefined && { final }), ...(metadata && { metadata }) };
}

/** An artifact update from an agent: append, lastChunk and metadata carried when present. */
export function artifactUpdate(artifact: Artifact, e: { append?: boolean; lastChunk?: boolean; metadata?: Metadata }): AgentUpdate {
  return {
    kind: "artifact",
    artifact,
    ...(e.append !== undefined && { append: e.append }),
    ...(e.lastChunk !== undefined && { lastChunk: e.lastChunk }),
    ...(e.metadata && { metadata: e.metadata }),
  };
}

/** A whole Task from an agent: its artifacts, then its status (with the task's metadata). */
export function taskUpdates(artifacts: Artifact[], status: TaskStatus, metadata?: Metadata): AgentUpdate[] {
  return [...artifacts.map((artifact): AgentUpdate => ({ kind: "artifact", artifact })), statusUpdate(status, metadata)];
}

/**
 * A bare Message from an agent (an answer without a task): a completed status carrying it, marked as the hub
 * marks a protocol 2 agent's bare Message (MESSAGE_ANSWER_KEY), so that a v0.3/v1.0 send answers with the
 * Message itself (agent-answer.ts) while the task is kept, logged and readable.
 */
export function answerUpdates(message: Message): AgentUpdate[] {
  const status: TaskStatus = { state: "completed", message: { ...message, role: "agent" } };
  return [{ kind: "status", status, metadata: { [MESSAGE_ANSWER_KEY]: true } }];
}

// ---- client side: reading requests -----------------------------------------------------------------

/** paramsSchemaId over a method table; a method the table lacks is MethodNotFound. */
export function schemaIdLookup(ids: Readonly<Record<string, string>>): Dialect["paramsSchemaId"] {
  return (method) => {
    const id = ids[method];
    if (!id) throw TaskError.methodNotFound(method);
    return id;
  };
}

/**
 * A send as the engine takes it. v0.3 and v1.0 clients name the task and context they continue on the
 * message itself (v0.1 names them in the params), so those come from the message.
 */
export function sendRequestOf(
  message: Message,
  options: { metadata?: Metadata; historyLength?: number; pushNotification?: PushNotificationConfig },
): SendRequest {
  return {
    ...(message.taskId !== undefined && { taskId: message.taskId }),
    ...(message.contextId !== undefined && { contextId: message.contextId }),
    message,
    metadata: options.metadata ?? {},
    ...(options.historyLength !== undefined && { historyLength: options.historyLength }),
    ...(options.pushNotification && { pushNotification: options.pushNotification }),
  };
}

/** `{id, historyLength?}` (v0.3 TaskQueryParams, v1.0 GetTaskRequest and the like) as a TaskRef. */
export function taskRefOf(params: unknown): TaskRef {
  const p = params as { id: string; historyLength?: number };
  return { taskId: p.id, ...(p.historyLength !== undefined && { historyLength: p.historyLength }) };
}
