import { newId } from "./ids.js";
import type { Artifact, ArtifactUpdate, DialectName, Part, SendRequest, Task, TaskStatus } from "./model.js";

/** A task created by `req`, submitted to its agent. */
export function newTask(req: SendRequest, dialect: DialectName, agentId: string, now: string): Task {
  return {
    id: req.taskId ?? newId(),
    contextId: req.contextId ?? newId(),
    agentId,
    dialect,
    status: { state: "submitted", timestamp: now },
    artifacts: [],
    history: [req.message],
    metadata: { ...req.metadata },
    createdAt: now,
    updatedAt: now,
    lastSeq: 0,
    ...(req.owner !== undefined && { owner: req.owner }),
  };
}

/**
 * A copy of a task newTask made, before its turn changed anything: worth a structuredClone, but sharing the
 * request's message and metadata values, which the task's history and the agent's context share already.
 */
export function copyOfNew(task: Task): Task {
  return { ...task, status: { ...task.status }, artifacts: [], history: [...task.history], metadata: { ...task.metadata } };
}

/** A task that waited for input, submitted again with `req`'s message. */
export function nextTurn(task: Task, req: SendRequest, now: string): void {
  task.status = { state: "submitted", timestamp: now };
  task.history.push(req.message);
  task.metadata = { ...task.metadata, ...req.metadata };
  task.updatedAt = now;
}

/** Applies an artifact update to a task's artifacts: replace by id, or append parts when `append`. */
export function applyArtifact(task: Task, update: ArtifactUpdate): void {
  const incoming = update.artifact;
  const at = task.artifacts.findIndex((a) => a.artifactId === incoming.artifactId);
  if (at < 0) {
    task.artifacts.push(cloneArtifact(incoming));
    return;
  }
  if (!update.append) {
    task.artifacts[at] = cloneArtifact(incoming);
    return;
  }
  const existing = task.artifacts[at]!;
  appendParts(existing.parts, incoming.parts);
  if (incoming.metadata) existing.metadata = { ...existing.metadata, ...incoming.metadata };
}

/** Appends parts, joining adjacent text so a token-streamed artifact reads back as one text part. */
function appendParts(target: Part[], parts: Part[]): void {
  for (const p of parts) {
    const last = target[target.length - 1];
    if (p.kind === "text" && last?.kind === "text" && !p.metadata && !last.metadata) {
      target[target.length - 1] = { kind: "text", text: last.text + p.text };
    } else {
      target.push({ ...p });
    }
  }
}

function cloneArtifact(a: Artifact): Artifact {
  return { ...a, parts: a.parts.map((p) => ({ ...p })) };
}

export function withTimestamp(status: TaskStatus, now: string): TaskStatus {
  return status.timestamp ? status : { ...status, timestamp: now };
}
