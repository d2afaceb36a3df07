import { agentOwnedProtocol } from "../shared/agent-owned-protocol.js";
import { messageToV03, updatesFromV03 } from "./translate.js";
import type { V03MessageSendParams } from "./types.js";

/**
 * The agent side of A2A v0.3: talking to a v0.3 agent (`message/send`, `message/stream`). The agent
 * chooses the task id, which the router learns from the first result and uses for follow-up turns and
 * cancel.
 */
export const v03Upstream = agentOwnedProtocol({
  dialect: "v0.3",
  version: "0.3",
  methods: { send: "message/send", stream: "message/stream", cancel: "tasks/cancel" },

  sendParams: (message, metadata): V03MessageSendParams => ({
    message: messageToV03(message),
    // v0.3 servers (the SDK's among them) return at once unless asked to block; the router waits for the turn.
    configuration: { blocking: true },
    metadata,
  }),

  updates: updatesFromV03,
  isTask: (result) => result.kind === "task",
  /** A Task names itself in `id`; events and messages name their task in `taskId`. */
  idsOf: (result) => ({ taskId: result.kind === "task" ? result.id : result.taskId, contextId: result.contextId }),
});
