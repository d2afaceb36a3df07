import { agentOwnedProtocol } from "../shared/agent-owned-protocol.js";
import { updatesFromV03 } from "./translate.js";
import { v03Codec, v03ResultIds } from "./codec.js";

/**
 * The agent side of A2A v0.3: talking to a v0.3 agent (`message/send`, `message/stream`) through its
 * codec. The agent chooses the task id, which the router learns from the first result and uses for
 * follow-up turns and cancel.
 */
export const v03Upstream = agentOwnedProtocol({
  codec: v03Codec,
  updates: updatesFromV03,
  isTask: (result) => result.kind === "task",
  ids: v03ResultIds,
});
