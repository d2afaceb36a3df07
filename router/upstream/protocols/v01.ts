import type { AgentUpdate, Task } from "../../core/model.js";
import { artifactFromV01, messageFromV01, messageToV01 } from "../../dialects/v01.js";
import type { UpstreamProtocol } from "../protocol.js";

type V01Status = { state: string; message?: Parameters<typeof messageFromV01>[0]; timestamp?: string };

function status(s: V01Status): Task["status"] {
  return {
    state: s.state as Task["status"]["state"],
    ...(s.message && { message: messageFromV01(s.message) }),
    ...(s.timestamp && { timestamp: s.timestamp }),
  };
}

/** Talking to a v0.1 agent: the router's task id is the upstream's task id. */
export const v01Upstream: UpstreamProtocol = {
  dialect: "v0.1",

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
    const r = result as { status?: V01Status; artifact?: Parameters<typeof artifactFromV01>[0] & { append?: boolean; lastChunk?: boolean }; final?: boolean; metadata?: Record<string, unknown> };
    if (r.artifact) {
      return [{
        kind: "artifact",
        artifact: artifactFromV01(r.artifact),
        ...(r.artifact.append !== undefined && { append: r.artifact.append }),
        ...(r.artifact.lastChunk !== undefined && { lastChunk: r.artifact.lastChunk }),
        ...(r.metadata && { metadata: r.metadata }),
      }];
    }
    if (r.status) return [{ kind: "status", status: status(r.status), final: r.final === true, ...(r.metadata && { metadata: r.metadata }) }];
    throw new Error("upstream sent an event that is neither a status nor an artifact update");
  },

  fromSendResult(result): AgentUpdate[] {
    const t = result as { status?: V01Status; artifacts?: Parameters<typeof artifactFromV01>[0][]; metadata?: Record<string, unknown> };
    if (!t?.status) throw new Error("upstream tasks/send result has no status");
    const out: AgentUpdate[] = (t.artifacts ?? []).map((a) => ({ kind: "artifact", artifact: artifactFromV01(a) }));
    out.push({ kind: "status", status: status(t.status), final: true, ...(t.metadata && { metadata: t.metadata }) });
    return out;
  },

  cancel: (taskId) => ({ method: "tasks/cancel", params: { id: taskId } }),
};
