/** The Eliza runtime as the router sees it: an AgentConnector hosted in-process, plus the transcript read. */
import type { AgentConnector, AgentInfo, AgentSkill, ExecuteContext } from "../../router/core/agent.js";
import type { AgentUpdate } from "../../router/core/model.js";
import type { MemoryRecordStore } from "../../router/core/store.js";
import { CHAT_SKILL_ID, ELIZA_AGENT_ID } from "./defaults.js";
import { hostedRoutes, type HostedRoute } from "./routes.js";
import type { AgentRuntime } from "./runtime.js";
import { toTranscript, type ConversationMessage } from "./transcript.js";
import { runTurn } from "./turn.js";
import type { Action, Character } from "./types.js";

/** The hosted Eliza agent. */
export interface ElizaAgent extends AgentConnector {
  /** The runtime behind the agent (actions, providers, character, model). */
  readonly runtime: AgentRuntime;
  /** The body of `GET /api/conversations/{sessionId}/messages` (docs/contract.md section 7), oldest first. */
  readConversation(sessionId: string): Promise<{ messages: ConversationMessage[] }>;
  /** The plugins' HTTP routes, for the server to mount (under `/api/plugins/{plugin}/`). */
  httpRoutes(): HostedRoute[];
  /** Stops the plugins' services (the router does at shutdown; an embedder that made the agent does). */
  close(): Promise<void>;
}

/** Actions that are the runtime's plumbing, not skills worth advertising. */
const PLUMBING = new Set(["REPLY", "IGNORE", "NONE"]);

function userExamples(examples: Array<Array<{ content?: { text?: unknown } }>> | undefined): string[] | undefined {
  const texts = (examples ?? []).map((c) => c[0]?.content?.text).filter((t): t is string => typeof t === "string");
  return texts.length > 0 ? texts.slice(0, 3) : undefined;
}

function describeCharacter(character: Character): string {
  const bio = Array.isArray(character.bio) ? character.bio.join(" ") : character.bio;
  return bio || `${character.name}, an Eliza-style agent`;
}

function skillOf(action: Action): AgentSkill {
  const skill: AgentSkill = { id: action.name, name: action.name, description: action.description };
  if (action.tags?.length) skill.tags = [...action.tags];
  const examples = userExamples(action.examples);
  if (examples) skill.examples = examples;
  return skill;
}

/** The card's skills: "chat" first (the default skill), then one per action a user can ask for. */
export function skillsOf(character: Character, actions: readonly Action[]): AgentSkill[] {
  const chat: AgentSkill = {
    id: CHAT_SKILL_ID,
    name: "Chat",
    description: `Talk with ${character.name}; actions run when the conversation calls for them.`,
    tags: ["chat"],
  };
  const examples = userExamples(character.messageExamples);
  if (examples) chat.examples = examples;
  return [chat, ...actions.filter((a) => !PLUMBING.has(a.name.toUpperCase())).map(skillOf)];
}

export class HostedElizaAgent implements ElizaAgent {
  readonly info: AgentInfo;
  readonly runtime: AgentRuntime;
  readonly #store: MemoryRecordStore;
  readonly #turnTimeoutMs: number;

  constructor(runtime: AgentRuntime, store: MemoryRecordStore, turnTimeoutMs: number) {
    this.runtime = runtime;
    this.#store = store;
    this.#turnTimeoutMs = turnTimeoutMs;
    this.info = {
      id: ELIZA_AGENT_ID,
      name: runtime.character.name,
      description: describeCharacter(runtime.character),
      transport: "hosted",
      skills: skillsOf(runtime.character, runtime.actions),
      streaming: true,
    };
  }

  isOnline(): boolean {
    return true;
  }

  execute(ctx: ExecuteContext): AsyncIterable<AgentUpdate> {
    return runTurn(this.runtime, ctx, { timeoutMs: this.#turnTimeoutMs });
  }

  httpRoutes(): HostedRoute[] {
    return hostedRoutes(this.runtime);
  }

  close(): Promise<void> {
    return this.runtime.stop();
  }

  async readConversation(sessionId: string): Promise<{ messages: ConversationMessage[] }> {
    const memories = await this.#store.listMemories(sessionId);
    return { messages: toTranscript(memories.filter((m) => m.agentId === this.runtime.agentId)) };
  }
}
