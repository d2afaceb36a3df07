/** Shared test helpers for the Eliza runtime: turn contexts, update collection, a runtime factory. */
import { randomUUID } from "node:crypto";
import { pino } from "pino";
import type { ExecuteContext } from "../../router/core/agent.js";
import type { AgentUpdate, ArtifactUpdate, StatusUpdate, Task } from "../../router/core/model.js";
import { MemoryStore } from "../../router/store/memory-store.js";
import { AgentRuntime } from "../../agents/eliza/runtime.js";
import { LocalModel } from "../../agents/eliza/models/local.js";
import type { TextModel } from "../../agents/eliza/models/text-model.js";
import type { Character, Plugin } from "../../agents/eliza/types.js";

export const silentLogger = pino({ enabled: false });

export function taskFor(contextId: string, id = randomUUID()): Task {
  const now = new Date().toISOString();
  return {
    id,
    contextId,
    agentId: "eliza",
    dialect: "v0.3",
    status: { state: "submitted" },
    artifacts: [],
    history: [],
    metadata: {},
    createdAt: now,
    updatedAt: now,
    lastSeq: 0,
  };
}

/** A turn context for `text` in conversation `contextId`. */
export function turnContext(text: string, contextId: string, extra: { signal?: AbortSignal; metadata?: Record<string, unknown> } = {}): ExecuteContext {
  return {
    task: taskFor(contextId),
    message: { role: "user", parts: [{ kind: "text", text }], messageId: randomUUID() },
    metadata: extra.metadata ?? {},
    signal: extra.signal ?? new AbortController().signal,
    flushed: async () => true,
  };
}

export async function collect(updates: AsyncIterable<AgentUpdate>): Promise<AgentUpdate[]> {
  const out: AgentUpdate[] = [];
  for await (const u of updates) out.push(u);
  return out;
}

export const artifactsOf = (updates: AgentUpdate[]) => updates.filter((u): u is ArtifactUpdate => u.kind === "artifact");
export const statusesOf = (updates: AgentUpdate[]) => updates.filter((u): u is StatusUpdate => u.kind === "status");
export const textOfStatus = (u: StatusUpdate) => (u.status.message?.parts[0] as { text: string } | undefined)?.text;
export const chunkText = (u: ArtifactUpdate) => (u.artifact.parts[0] as { text: string }).text;

/** A runtime with the given plugins registered (bootstrap is not added implicitly). */
export function makeRuntime(plugins: Plugin[], options: { character?: Character; model?: TextModel; store?: MemoryStore } = {}): AgentRuntime {
  const runtime = new AgentRuntime({
    agentId: "eliza",
    character: options.character ?? { name: "Tester" },
    model: options.model ?? new LocalModel(),
    store: options.store ?? new MemoryStore(),
    logger: silentLogger,
  });
  for (const p of plugins) runtime.registerPlugin(p);
  return runtime;
}
