import type { Artifact, ArtifactUpdate, Part, Task, TaskStatus } from "./model.js";

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
