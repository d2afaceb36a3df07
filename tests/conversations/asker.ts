import type { AgentConnector } from "../../router/core/agent.js";
import { agentText, type Message } from "../../router/core/model.js";
import { scriptedAgent } from "../helpers/agents.js";

/** The text parts of a message, joined. */
export function messageText(message: Message | undefined): string {
  return (message?.parts ?? []).map((p) => (p.kind === "text" ? p.text : "")).join("");
}

/**
 * An agent that asks back once per task: its first turn ends input-required ("Where from?"), the next one
 * completes with what the client answered ("Booked from London."). Each turn logs a working status first.
 */
export function askerAgent(id = "asker"): AgentConnector {
  return scriptedAgent(id, async function* (ctx) {
    const continued = ctx.task.history.length > 1;
    yield { kind: "status", status: { state: "working", message: agentText(continued ? "booking" : "reading") }, final: false };
    if (!continued) {
      yield { kind: "status", status: { state: "input-required", message: agentText("Where from?") }, final: true };
      return;
    }
    yield { kind: "artifact", artifact: { artifactId: "booking", name: "booking", parts: [{ kind: "text", text: `from ${messageText(ctx.message)}` }] } };
    yield { kind: "status", status: { state: "completed", message: agentText(`Booked from ${messageText(ctx.message)}.`) }, final: true };
  });
}
