import type { AgentUpdate, Artifact, Message, Part, PushNotificationConfig, Task, TaskStatus } from "../../core/model.js";
import type { OutboundEvent } from "../shared/dialect.js";
import { historyWindow, invalidAgentResult, isRecord, nonEmpty, referencesOf, someMetadata } from "../shared/translate-helpers.js";
import { answerUpdates, artifactUpdate, mapArtifactParts, mapStatus, type MessageScope, scopeMessage, statusUpdate, taskUpdates } from "../shared/v03-v10.js";
import type {
  V03Artifact,
  V03ArtifactUpdateEvent,
  V03Message,
  V03Part,
  V03PushNotificationConfig,
  V03StatusUpdateEvent,
  V03Task,
  V03TaskPushNotificationConfig,
  V03TaskStatus,
} from "./types.js";

/**
 * A2A v0.3 to and from the internal model, both directions: the client side (client.ts), the agent side
 * (agent.ts) and push (push.ts) use these. The internal model follows v0.3 naming, so this is mostly a
 * matter of adding `kind`s, filling the members v0.3 requires (messageId) and dropping the ones it does
 * not know.
 */

// ---- parts, messages, artifacts -------------------------------------------------------------------

export function partFromV03(p: V03Part): Part {
  const meta = p.metadata && { metadata: p.metadata };
  if (p.kind === "file") {
    const f = p.file;
    return {
      kind: "file",
      file: {
        ...(f.name !== undefined && { name: f.name }),
        ...(f.mimeType !== undefined && { mimeType: f.mimeType }),
        ...(f.bytes !== undefined && { bytes: f.bytes }),
        ...(f.uri !== undefined && { uri: f.uri }),
      },
      ...meta,
    };
  }
  if (p.kind === "data") return { kind: "data", data: p.data, ...meta };
  return { kind: "text", text: p.text, ...meta };
}

export function partToV03(p: Part): V03Part {
  const meta = p.metadata && { metadata: p.metadata };
  if (p.kind === "file") return { kind: "file", file: { ...p.file }, ...meta };
  if (p.kind === "data") return { kind: "data", data: p.data, ...meta };
  return { kind: "text", text: p.text, ...meta };
}

export function messageFromV03(m: V03Message): Message {
  return {
    role: m.role,
    parts: m.parts.map(partFromV03),
    messageId: m.messageId,
    ...(nonEmpty(m.taskId) && { taskId: m.taskId }),
    ...(nonEmpty(m.contextId) && { contextId: m.contextId }),
    ...referencesOf(m),
    ...(m.metadata && { metadata: m.metadata }),
  };
}

export function messageToV03(m: Message, scope: MessageScope = {}): V03Message {
  const { messageId, ...where } = scopeMessage(m, scope);
  return {
    kind: "message",
    messageId,
    role: m.role,
    parts: m.parts.map(partToV03),
    ...where,
    ...referencesOf(m),
    ...(m.metadata && { metadata: m.metadata }),
  };
}

export function artifactFromV03(a: V03Artifact): Artifact {
  return mapArtifactParts(a, partFromV03);
}

export function artifactToV03(a: Artifact): V03Artifact {
  return mapArtifactParts(a, partToV03);
}

// ---- status, tasks, events ------------------------------------------------------------------------

export function statusFromV03(s: V03TaskStatus): TaskStatus {
  return mapStatus(s, s.state, messageFromV03);
}

export function statusToV03(s: TaskStatus, scope: MessageScope): V03TaskStatus {
  return mapStatus(s, s.state, (m) => messageToV03(m, scope));
}

/** A Task as v0.3 writes it. `historyLength` follows A2A: unset = all, 0 = none, N = the last N. */
export function taskToV03(task: Task, historyLength?: number): V03Task {
  const scope = { taskId: task.id, contextId: task.contextId };
  const history = historyWindow(task.history, historyLength);
  const metadata = someMetadata(task.metadata);
  return {
    kind: "task",
    id: task.id,
    contextId: task.contextId,
    status: statusToV03(task.status, scope),
    artifacts: task.artifacts.map(artifactToV03),
    ...(history && { history: history.map((m) => messageToV03(m, scope)) }),
    ...(metadata && { metadata }),
  };
}

export function eventToV03(event: OutboundEvent): V03StatusUpdateEvent | V03ArtifactUpdateEvent {
  const meta = event.metadata && { metadata: event.metadata };
  if (event.kind === "artifact") {
    return {
      kind: "artifact-update",
      taskId: event.taskId,
      contextId: event.contextId,
      artifact: artifactToV03(event.artifact),
      ...(event.append !== undefined && { append: event.append }),
      ...(event.lastChunk !== undefined && { lastChunk: event.lastChunk }),
      ...meta,
    };
  }
  return {
    kind: "status-update",
    taskId: event.taskId,
    contextId: event.contextId,
    status: statusToV03(event.status, { taskId: event.taskId, contextId: event.contextId }),
    final: event.final,
    ...meta,
  };
}

/**
 * What a v0.3 agent's result or stream event says, as internal updates (agent side). A Task becomes its
 * artifacts then its status; a bare Message (an agent answering without a task) becomes a completed
 * status carrying it. Anything else is an invalid agent response.
 */
export function updatesFromV03(result: unknown): AgentUpdate[] {
  if (!isRecord(result)) throw invalidAgentResult("v0.3", result);
  switch (result.kind) {
    case "status-update": {
      const e = result as unknown as V03StatusUpdateEvent;
      const final = typeof e.final === "boolean" ? e.final : undefined;
      return [statusUpdate(statusFromV03(e.status), e.metadata, final)];
    }
    case "artifact-update": {
      const e = result as unknown as V03ArtifactUpdateEvent;
      return [artifactUpdate(artifactFromV03(e.artifact), e)];
    }
    case "task": {
      const t = result as unknown as V03Task;
      return taskUpdates((t.artifacts ?? []).map(artifactFromV03), statusFromV03(t.status), t.metadata);
    }
    case "message":
      return answerUpdates(messageFromV03(result as unknown as V03Message));
    default:
      throw invalidAgentResult("v0.3", result);
  }
}

// ---- push notification configs --------------------------------------------------------------------

export function pushConfigFromV03(c: V03PushNotificationConfig): PushNotificationConfig {
  return {
    url: c.url,
    ...(nonEmpty(c.id) && { id: c.id }),
    ...(nonEmpty(c.token) && { token: c.token }),
    ...(c.authentication && {
      authentication: {
        schemes: [...c.authentication.schemes],
        ...(c.authentication.credentials !== undefined && { credentials: c.authentication.credentials }),
      },
    }),
  };
}

export function pushConfigToV03(taskId: string, c: PushNotificationConfig): V03TaskPushNotificationConfig {
  return {
    taskId,
    pushNotificationConfig: {
      url: c.url,
      ...(c.id !== undefined && { id: c.id }),
      ...(c.token !== undefined && { token: c.token }),
      ...(c.authentication && { authentication: { ...c.authentication, schemes: [...c.authentication.schemes] } }),
    },
  };
}
