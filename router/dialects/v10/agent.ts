import { agentOwnedProtocol } from "../shared/agent-owned-protocol.js";
import { isRecord } from "../shared/translate-helpers.js";
import { messageToV10, updatesFromV10 } from "./translate.js";
import type { V10SendMessageRequest } from "./types.js";

/**
 * The agent side of A2A v1.0: talking to a v1.0 agent (`SendMessage`, `SendStreamingMessage`,
 * ProtoJSON). The agent chooses the task id, which the router learns from the first result and uses for
 * follow-up turns and cancel.
 */
export const v10Upstream = agentOwnedProtocol({
  dialect: "v1.0",
  // v1.0 servers treat a request without this header as 0.3 (spec 3.6.2) and may refuse it.
  version: "1.0",
  methods: { send: "SendMessage", stream: "SendStreamingMessage", cancel: "CancelTask" },

  sendParams: (message, metadata): V10SendMessageRequest => ({
    message: messageToV10(message),
    // Blocking is v1.0's default; said anyway so a server with another default still waits for the turn.
    configuration: { returnImmediately: false },
    metadata,
  }),

  updates: updatesFromV10,
  isTask: (result) => isRecord(result.task),
  /** The ids sit in whichever StreamResponse member is set: `task.id`, or `taskId` on the others. */
  idsOf(result) {
    const inner = [result.task, result.statusUpdate, result.artifactUpdate, result.message].find(isRecord);
    if (!inner) return {};
    return { taskId: isRecord(result.task) ? inner.id : inner.taskId, contextId: inner.contextId };
  },
});
