import type { Artifact, Message, Part, Task, TaskState } from "../../core/model.js";
import type { OutboundEvent } from "../shared/dialect.js";

/**
 * The A2A v0.1 wire format (the seeds' dialect): parts discriminated by `type`, the client names its task
 * (`id`) and session (`sessionId`), status events carry `final`. The shapes and their translation to and
 * from the internal model, used by the client side (client.ts), the agent side (agent.ts), push (push.ts)
 * and the hub, whose frames carry v0.1 messages.
 */

export type V01Part = { type: string; text?: string; file?: unknown; data?: unknown; metadata?: Record<string, unknown> };

export type V01Message = { role: "user" | "agent"; parts: V01Part[]; metadata?: Record<string, unknown> };

export interface V01Artifact {
  name?: string;
  description?: string;
  parts: V01Part[];
  index?: number;
  append?: boolean;
  lastChunk?: boolean;
  metadata?: Record<string, unknown>;
}

export interface V01TaskStatus {
  state: string;
  message?: V01Message;
  timestamp?: string;
}

export function partFromV01(p: V01Part): Part {
  if (p.type === "file") return { kind: "file", file: p.file as never, ...(p.metadata && { metadata: p.metadata }) };
  if (p.type === "data") return { kind: "data", data: p.data as never, ...(p.metadata && { metadata: p.metadata }) };
  return { kind: "text", text: p.text ?? "", ...(p.metadata && { metadata: p.metadata }) };
}

export function partToV01(p: Part): V01Part {
  const meta = p.metadata && { metadata: p.metadata };
  if (p.kind === "file") return { type: "file", file: p.file, ...meta };
  if (p.kind === "data") return { type: "data", data: p.data, ...meta };
  return { type: "text", text: p.text, ...meta };
}

export function messageFromV01(m: V01Message): Message {
  return { role: m.role, parts: m.parts.map(partFromV01), ...(m.metadata && { metadata: m.metadata }) };
}

export function messageToV01(m: Message): V01Message {
  return { role: m.role, parts: m.parts.map(partToV01), ...(m.metadata && { metadata: m.metadata }) };
}

export function artifactFromV01(a: V01Artifact): Artifact {
  const index = a.index ?? 0;
  return {
    artifactId: `artifact-${index}`,
    index,
    parts: a.parts.map(partFromV01),
    ...(a.name !== undefined && { name: a.name }),
    ...(a.description !== undefined && { description: a.description }),
    ...(a.metadata && { metadata: a.metadata }),
  };
}

export function artifactToV01(a: Artifact, position: number, extra?: { append?: boolean; lastChunk?: boolean }) {
  return {
    ...(a.name !== undefined && { name: a.name }),
    ...(a.description !== undefined && { description: a.description }),
    parts: a.parts.map(partToV01),
    index: a.index ?? position,
    ...(extra?.append !== undefined && { append: extra.append }),
    ...(extra?.lastChunk !== undefined && { lastChunk: extra.lastChunk }),
    ...(a.metadata && { metadata: a.metadata }),
  };
}

export function statusToV01(status: Task["status"]) {
  return {
    state: status.state,
    ...(status.message && { message: messageToV01(status.message) }),
    ...(status.timestamp && { timestamp: status.timestamp }),
  };
}

/** A Task as v0.1's tasks/get and tasks/send answer it; `historyLength` unset = no history. */
export function taskToV01(task: Task, historyLength?: number) {
  const history = historyLength === undefined ? undefined : historyLength <= 0 ? [] : task.history.slice(-historyLength);
  return {
    id: task.id,
    sessionId: task.contextId,
    status: statusToV01(task.status),
    artifacts: task.artifacts.map((a, i) => artifactToV01(a, i)),
    ...(history && { history: history.map(messageToV01) }),
    metadata: task.metadata,
  };
}

/** An agent's status as the internal model holds it (an unknown state is left for the engine to refuse). */
export function statusFromV01(s: V01TaskStatus): Task["status"] {
  return {
    state: s.state as TaskState,
    ...(s.message && { message: messageFromV01(s.message) }),
    ...(s.timestamp && { timestamp: s.timestamp }),
  };
}

/** One stream event as v0.1 writes it: `{id, status, final}` or `{id, artifact}`. */
export function eventToV01(event: OutboundEvent) {
  if (event.kind === "artifact") {
    return {
      id: event.taskId,
      artifact: artifactToV01(event.artifact, event.artifact.index ?? 0, {
        append: event.append,
        lastChunk: event.lastChunk,
      }),
      ...(event.metadata && { metadata: event.metadata }),
    };
  }
  return {
    id: event.taskId,
    status: statusToV01(event.status),
    final: event.final,
    ...(event.metadata && { metadata: event.metadata }),
  };
}
