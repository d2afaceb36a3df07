import type { AgentUpdate } from "../../core/model.js";
import type { UpstreamProtocol } from "../shared/upstream-protocol.js";
import { artifactFromV01, messageToV01, statusFromV01, type V01Artifact, type V01TaskStatus } from "./wire.js";

interface V01StreamEvent {
  status?: V01TaskStatus;
  artifact?: V01Artifact;
  final?: boolean;
  metadata?: Record<string, unknown>;
}

interface V01Task {
  status?: V01TaskStatus;
  artifacts?: V01Artifact[];
  metadata?: Record<string, unknown>;
}

/**
 * The agent side of A2A v0.1: talking to a v0.1 agent. The router's task id is the upstream's task id
 * and its context id the upstream's sessionId, so no upstream id of its own comes back.
 */
export const v01Upstream: UpstreamProtocol = {
  dialect: "v0.1",
  // v0.1 agents (the seeds') stream their answer as status message chunks.
  workingTextKind: "delta",

  turn(ctx, streaming) {
    return {
      method: streaming ? "tasks/sendSubscribe" : "tasks/send",
      params: {
        id: ctx.task.id,
        sessionId: ctx.task.contextId,
        message: messageToV01(ctx.message),
        metadata: ctx.metadata,
      },
    };
  },

  fromStreamResult(result): AgentUpdate[] {
    const r = (result ?? {}) as V01StreamEvent;
    if (r.artifact) {
      return [
        {
          kind: "artifact",
          artifact: artifactFromV01(r.artifact),
          ...(r.artifact.append !== undefined && { append: r.artifact.append }),
          ...(r.artifact.lastChunk !== undefined && { lastChunk: r.artifact.lastChunk }),
          ...(r.metadata && { metadata: r.metadata }),
        },
      ];
    }
    if (r.status) {
      return [{ kind: "status", status: statusFromV01(r.status), final: r.final === true, ...(r.metadata && { metadata: r.metadata }) }];
    }
    throw new Error("upstream sent an event that is neither a status nor an artifact update");
  },

  fromSendResult(result): AgentUpdate[] {
    const t = (result ?? {}) as V01Task;
    if (!t.status) throw new Error("upstream tasks/send result has no status");
    const out: AgentUpdate[] = (t.artifacts ?? []).map((a) => ({ kind: "artifact", artifact: artifactFromV01(a) }));
    out.push({ kind: "status", status: statusFromV01(t.status), final: true, ...(t.metadata && { metadata: t.metadata }) });
    return out;
  },

  cancel: (taskId) => ({ method: "tasks/cancel", params: { id: taskId } }),
};
