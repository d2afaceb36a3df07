import type { AgentConnector, ExecuteContext } from "../../router/core/agent.js";
import { agentText, textOf, type AgentUpdate, type TextKind } from "../../router/core/model.js";

/**
 * A hosted agent that names the textKind of every status itself (CONTRACT 9), so the CLI's rendering is
 * tested against known labels, whatever each agent edge's labelling does. Skills (metadata.skill):
 * `chunks` streams the words upper-cased as deltas; `progress` sends a progress line, then the answer as a
 * delta; `wait` streams "waiting", waits for `release(taskId)` or a cancel, then " released".
 */
export function labelledAgent(gate: (taskId: string) => Promise<void>): AgentConnector {
  const say = (text: string, textKind: TextKind): AgentUpdate => ({
    kind: "status",
    status: { state: "working", message: agentText(text) },
    final: false,
    metadata: { textKind },
  });
  const end = (text: string): AgentUpdate => ({
    kind: "status",
    status: { state: "completed", message: agentText(text) },
    final: true,
    metadata: { textKind: "snapshot" },
  });
  return {
    info: {
      id: "labelled",
      name: "labelled",
      description: "Streams text with explicit textKind labels",
      transport: "hosted",
      streaming: true,
      skills: ["chunks", "progress", "wait"].map((id) => ({ id, name: id, description: id })),
    },
    isOnline: () => true,
    async *execute(ctx: ExecuteContext): AsyncGenerator<AgentUpdate> {
      const text = textOf(ctx.message);
      if (ctx.skill === "progress") {
        yield say("thinking...", "progress");
        yield say("HI YOU", "delta");
        yield end("HI YOU");
        return;
      }
      if (ctx.skill === "wait") {
        yield say("waiting", "delta");
        await Promise.race([gate(ctx.task.id), new Promise((r) => ctx.signal.addEventListener("abort", r, { once: true }))]);
        if (ctx.signal.aborted) return;
        yield say(" released", "delta");
        yield end("waiting released");
        return;
      }
      let answer = "";
      for (const word of text.split(" ")) {
        answer += `${word.toUpperCase()} `;
        yield say(`${word.toUpperCase()} `, "delta");
      }
      yield end(answer);
    },
  };
}
