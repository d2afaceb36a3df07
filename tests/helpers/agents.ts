import type { AgentConnector, ExecuteContext } from "../../router/core/agent.js";
import { agentText, type AgentUpdate, type Message } from "../../router/core/model.js";

/** A hosted agent whose turn is the given generator: the simplest way to script an agent in tests. */
export function scriptedAgent(id: string, script: (ctx: ExecuteContext) => AsyncIterable<AgentUpdate>): AgentConnector {
  return {
    info: { id, name: id, description: `test agent ${id}`, transport: "hosted", streaming: true, skills: [{ id: "main", name: "main", description: "" }] },
    isOnline: () => true,
    execute: script,
  };
}

/** Streams `n` numbered artifact chunks, then completes. */
export function counterAgent(id: string, n: number): AgentConnector {
  return scriptedAgent(id, async function* () {
    for (let i = 1; i <= n; i++) {
      yield { kind: "artifact", artifact: { artifactId: "count", name: "count", parts: [{ kind: "text", text: `${i},` }] }, append: i > 1 };
    }
    yield { kind: "status", status: { state: "completed", message: agentText(`counted to ${n}`) }, final: true };
  });
}

/** An agent that waits until released: lets tests act while a task is in flight. */
export function gatedAgent(id: string) {
  let release!: () => void;
  let started!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  const running = new Promise<void>((r) => (started = r));
  const agent = scriptedAgent(id, async function* (ctx) {
    yield { kind: "status", status: { state: "working", message: agentText("started") }, final: false };
    started();
    await Promise.race([gate, new Promise((r) => ctx.signal.addEventListener("abort", r))]);
    if (ctx.signal.aborted) return;
    yield { kind: "artifact", artifact: { artifactId: "a", name: "result", parts: [{ kind: "text", text: "done" }] } };
    yield { kind: "status", status: { state: "completed", message: agentText("finished") }, final: true };
  });
  return { agent, release, running };
}

/**
 * A hosted agent `files` whose own card takes text and images only (`defaultInputModes`); it answers with the
 * kinds of the parts it got. `received()` is the message it was last sent (what a face made of a file), `runs()`
 * how many turns it ran.
 */
export function filesAgent() {
  let last: Message | undefined;
  let runs = 0;
  const agent: AgentConnector = {
    info: {
      id: "files",
      name: "files",
      description: "takes pictures",
      transport: "hosted",
      streaming: true,
      skills: [{ id: "main", name: "main", description: "" }],
      card: { defaultInputModes: ["text/plain", "image/*"] },
    },
    isOnline: () => true,
    async *execute(ctx) {
      runs += 1;
      last = ctx.message;
      yield { kind: "status", status: { state: "completed", message: agentText(ctx.message.parts.map((p) => p.kind).join(",")) }, final: true };
    },
  };
  return { agent, received: () => last, runs: () => runs };
}
