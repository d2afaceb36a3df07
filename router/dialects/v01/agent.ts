import type { UpstreamProtocol } from "../shared/upstream-protocol.js";
import { updatesFromV01Event, updatesFromV01Task, v01Codec } from "./codec.js";

/**
 * The agent side of A2A v0.1: talking to a v0.1 agent, through its codec. The router's task id is the
 * upstream's task id and its context id the upstream's sessionId, so no upstream id of its own comes back.
 */
export const v01Upstream: UpstreamProtocol = {
  dialect: "v0.1",
  // v0.1 agents (the seeds') stream their answer as status message chunks.
  workingTextKind: "delta",

  turn: (ctx, streaming) => v01Codec.send({ ...ctx.message, taskId: ctx.task.id, contextId: ctx.task.contextId }, ctx.metadata, streaming),
  fromStreamResult: updatesFromV01Event,
  fromSendResult: updatesFromV01Task,
  cancel: (taskId) => v01Codec.cancel(taskId),
};
