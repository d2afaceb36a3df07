import type { AgentUpdate, Artifact, Message, Part, PushNotificationConfig, Task, TaskState, TaskStatus } from "../../core/model.js";
import { TaskError } from "../../core/errors.js";
import type { OutboundEvent } from "../shared/dialect.js";
import { dataPartOf, dataValueOf, historyWindow, invalidAgentResult, isRecord, nonEmpty, referencesOf, someMetadata } from "../shared/translate-helpers.js";
import { answerUpdates, artifactUpdate, mapArtifactParts, mapStatus, type MessageScope, scopeMessage, statusUpdate, taskUpdates } from "../shared/v03-v10.js";
import type {
  V10Artifact,
  V10ArtifactUpdate,
  V10Message,
  V10Part,
  V10Role,
  V10StatusUpdate,
  V10StreamResponse,
  V10Task,
  V10TaskPushNotificationConfig,
  V10TaskState,
  V10TaskStatus,
} from "./types.js";

/**
 * A2A v1.0 to and from the internal model, both directions: the client side (client.ts), the agent side
 * (agent.ts) and push (push.ts) use these.
 */

// ---- enums ----------------------------------------------------------------------------------------

const STATE_TO_V10: Record<TaskState, V10TaskState> = {
  submitted: "TASK_STATE_SUBMITTED",
  working: "TASK_STATE_WORKING",
  "input-required": "TASK_STATE_INPUT_REQUIRED",
  completed: "TASK_STATE_COMPLETED",
  canceled: "TASK_STATE_CANCELED",
  failed: "TASK_STATE_FAILED",
  rejected: "TASK_STATE_REJECTED",
  "auth-required": "TASK_STATE_AUTH_REQUIRED",
  unknown: "TASK_STATE_UNSPECIFIED",
};
const STATE_FROM_V10 = Object.fromEntries(Object.entries(STATE_TO_V10).map(([k, v]) => [v, k])) as Record<V10TaskState, TaskState>;

export function stateToV10(state: TaskState): V10TaskState {
  return STATE_TO_V10[state];
}

/** Unknown names (a newer agent) read as "unknown" rather than failing the task. */
export function stateFromV10(state: string): TaskState {
  return STATE_FROM_V10[state as V10TaskState] ?? "unknown";
}

export function roleToV10(role: Message["role"]): V10Role {
  return role === "user" ? "ROLE_USER" : "ROLE_AGENT";
}

export function roleFromV10(role: string): Message["role"] {
  return role === "ROLE_USER" ? "user" : "agent";
}

// ---- parts, messages, artifacts -------------------------------------------------------------------

/** A v1.0 part as the internal (v0.3-shaped) one: raw/url become a file, non-object data is wrapped. */
export function partFromV10(p: V10Part): Part {
  const meta = p.metadata && { metadata: p.metadata };
  if (p.text !== undefined) return { kind: "text", text: p.text, ...meta };
  if (p.raw !== undefined || p.url !== undefined) {
    return {
      kind: "file",
      file: {
        ...(p.raw !== undefined ? { bytes: p.raw } : { uri: p.url }),
        ...(nonEmpty(p.filename) && { name: p.filename }),
        ...(nonEmpty(p.mediaType) && { mimeType: p.mediaType }),
      },
      ...meta,
    };
  }
  if ("data" in p) return dataPartOf(p.data, p.metadata);
  throw TaskError.invalidParams("a part must have one of text, raw, url or data", "parts");
}

export function partToV10(p: Part): V10Part {
  if (p.kind === "text") return { text: p.text, ...(p.metadata && { metadata: p.metadata }) };
  if (p.kind === "data") {
    const { value, metadata } = dataValueOf(p);
    return { data: value, ...(metadata && { metadata }) };
  }
  const f = p.file;
  return {
    ...(f.bytes !== undefined ? { raw: f.bytes } : { url: f.uri ?? "" }),
    ...(f.name !== undefined && { filename: f.name }),
    ...(f.mimeType !== undefined && { mediaType: f.mimeType }),
    ...(p.metadata && { metadata: p.metadata }),
  };
}

export function messageFromV10(m: V10Message): Message {
  return {
    role: roleFromV10(m.role),
    parts: m.parts.map(partFromV10),
    ...(nonEmpty(m.messageId) && { messageId: m.messageId }),
    ...(nonEmpty(m.taskId) && { taskId: m.taskId }),
    ...(nonEmpty(m.contextId) && { contextId: m.contextId }),
    ...referencesOf(m),
    ...(m.metadata && { metadata: m.metadata }),
  };
}

/** Fills taskId/contextId from `scope` when the message lacks them; a stable messageId when it has none. */
export function messageToV10(m: Message, scope: MessageScope = {}): V10Message {
  const { messageId, ...where } = scopeMessage(m, scope);
  return {
    messageId,
    role: roleToV10(m.role),
    parts: m.parts.map(partToV10),
    ...where,
    ...referencesOf(m),
    ...(m.metadata && { metadata: m.metadata }),
  };
}

/** Not mapArtifactParts: ProtoJSON may write an unset name or description as "" and omit empty `parts`. */
export function artifactFromV10(a: V10Artifact): Artifact {
  return {
    artifactId: a.artifactId,
    parts: (a.parts ?? []).map(partFromV10),
    ...(nonEmpty(a.name) && { name: a.name }),
    ...(nonEmpty(a.description) && { description: a.description }),
    ...(a.metadata && { metadata: a.metadata }),
  };
}

export function artifactToV10(a: Artifact): V10Artifact {
  return mapArtifactParts(a, partToV10);
}

// ---- status, tasks, events ------------------------------------------------------------------------

export function statusFromV10(s: V10TaskStatus): TaskStatus {
  return mapStatus(s, stateFromV10(s.state), messageFromV10);
}

export function statusToV10(s: TaskStatus, scope: MessageScope): V10TaskStatus {
  return mapStatus(s, stateToV10(s.state), (m) => messageToV10(m, scope));
}

export interface V10TaskRenderOptions {
  /** A2A historyLength: unset = all, 0 = none, N = the last N. */
  historyLength?: number;
  /** false omits `artifacts` entirely (ListTasks without includeArtifacts, spec 3.1.4). Default true. */
  includeArtifacts?: boolean;
}

export function taskToV10(task: Task, options: V10TaskRenderOptions = {}): V10Task {
  const scope = { taskId: task.id, contextId: task.contextId };
  const history = historyWindow(task.history, options.historyLength);
  const metadata = someMetadata(task.metadata);
  return {
    id: task.id,
    contextId: task.contextId,
    status: statusToV10(task.status, scope),
    ...(options.includeArtifacts !== false && { artifacts: task.artifacts.map(artifactToV10) }),
    ...(history && { history: history.map((m) => messageToV10(m, scope)) }),
    ...(metadata && { metadata }),
  };
}

export function eventToV10(event: OutboundEvent): V10StreamResponse {
  const meta = event.metadata && { metadata: event.metadata };
  if (event.kind === "artifact") {
    return {
      artifactUpdate: {
        taskId: event.taskId,
        contextId: event.contextId,
        artifact: artifactToV10(event.artifact),
        ...(event.append && { append: true }),
        ...(event.lastChunk && { lastChunk: true }),
        ...meta,
      },
    };
  }
  return {
    statusUpdate: {
      taskId: event.taskId,
      contextId: event.contextId,
      status: statusToV10(event.status, { taskId: event.taskId, contextId: event.contextId }),
      ...meta,
    },
  };
}

/**
 * What a v1.0 agent's SendMessageResponse or StreamResponse says, as internal updates (agent side).
 * A Task becomes its artifacts then its status; a Message (an answer without a task) a completed status
 * carrying it. A status update's turn end is left to its state (v1.0 has no `final`).
 */
export function updatesFromV10(result: unknown): AgentUpdate[] {
  if (!isRecord(result)) throw invalidAgentResult("v1.0", result);
  if (isRecord(result.statusUpdate)) {
    const e = result.statusUpdate as unknown as V10StatusUpdate;
    return [statusUpdate(statusFromV10(e.status), e.metadata)];
  }
  if (isRecord(result.artifactUpdate)) {
    const e = result.artifactUpdate as unknown as V10ArtifactUpdate;
    return [artifactUpdate(artifactFromV10(e.artifact), e)];
  }
  if (isRecord(result.task)) {
    const t = result.task as unknown as V10Task;
    if (!isRecord(t.status)) throw invalidAgentResult("v1.0", result);
    return taskUpdates((t.artifacts ?? []).map(artifactFromV10), statusFromV10(t.status), t.metadata);
  }
  if (isRecord(result.message)) return answerUpdates(messageFromV10(result.message as unknown as V10Message));
  throw invalidAgentResult("v1.0", result);
}

// ---- push notification configs --------------------------------------------------------------------

export function pushConfigFromV10(c: V10TaskPushNotificationConfig): PushNotificationConfig {
  return {
    url: c.url,
    ...(nonEmpty(c.id) && { id: c.id }),
    ...(nonEmpty(c.token) && { token: c.token }),
    ...(c.authentication &&
      nonEmpty(c.authentication.scheme) && {
        authentication: {
          schemes: [c.authentication.scheme],
          ...(nonEmpty(c.authentication.credentials) && { credentials: c.authentication.credentials }),
        },
      }),
  };
}

/** v1.0 has one scheme where v0.3 had a list: the first one is the one the router uses. */
export function pushConfigToV10(taskId: string, c: PushNotificationConfig): V10TaskPushNotificationConfig {
  const scheme = c.authentication?.schemes[0];
  return {
    taskId,
    ...(c.id !== undefined && { id: c.id }),
    url: c.url,
    ...(c.token !== undefined && { token: c.token }),
    ...(scheme !== undefined && {
      authentication: {
        scheme,
        ...(c.authentication?.credentials !== undefined && { credentials: c.authentication.credentials }),
      },
    }),
  };
}
