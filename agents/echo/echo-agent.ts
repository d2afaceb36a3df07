import type { AgentConnector, ExecuteContext } from "../../router/core/agent.js";
import { agentText, TEXT_KIND_KEY, textOf, type AgentUpdate } from "../../router/core/model.js";

/**
 * The hosted `echo` agent: answers every message with its own text. One `working` status, then the
 * completion, so clients see a real two-event stream. Useful as a smoke test and a latency baseline. The
 * working status already holds the whole answer: a `snapshot` (docs/reply-model.md), not progress.
 */
export function createEchoAgent(): AgentConnector {
  return {
    info: {
      id: "echo",
      name: "echo",
      description: "Echoes the text of each message back.",
      transport: "hosted",
      streaming: true,
      skills: [{ id: "echo", name: "Echo", description: "Replies with the text it was sent.", tags: ["test"], examples: ["hello"] }],
    },
    isOnline: () => true,
    async *execute(ctx: ExecuteContext): AsyncGenerator<AgentUpdate> {
      const text = textOf(ctx.message);
      yield { kind: "status", status: { state: "working", message: agentText(text) }, final: false, metadata: { [TEXT_KIND_KEY]: "snapshot" } };
      yield { kind: "status", status: { state: "completed", message: agentText(text) }, final: true };
    },
  };
}
