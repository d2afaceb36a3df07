import { isRecord } from "../../dialects/parts.js";
import { messageToV10, updatesFromV10, type V10SendMessageRequest } from "../../dialects/v10.js";
import { agentOwnedProtocol } from "./agent-owned.js";

/**
 * Talking to a v1.0 agent (`SendMessage`, `SendStreamingMessage`, ProtoJSON): the agent chooses the task
 * id, which the router learns from the first result and uses for follow-up turns and cancel.
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
  /** The id sits in whichever StreamResponse member is set: `task.id`, or `taskId` on the others. */
  taskIdOf(result) {
    const inner = [result.task, result.statusUpdate, result.artifactUpdate, result.message].find(isRecord);
    return inner && (isRecord(result.task) ? inner.id : inner.taskId);
  },
});
