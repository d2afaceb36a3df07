import type { AgentUpdate, Message, Metadata, Task } from "./model.js";

/** How an agent is reached. Clients see all three the same way. */
export type AgentTransport = "hosted" | "http" | "ws";

export interface AgentSkill {
  id: string;
  name: string;
  description: string;
  tags?: string[];
  examples?: string[];
}

/** An A2A extension an agent's card declares (`capabilities.extensions`). */
export interface AgentExtension {
  uri: string;
  description?: string;
  /** The client must use it to be served. */
  required?: boolean;
  params?: Record<string, unknown>;
}

/** What the router knows about an agent; the per-agent card is rendered from it. */
export interface AgentInfo {
  id: string;
  name: string;
  description: string;
  transport: AgentTransport;
  skills: AgentSkill[];
  /** Whether the agent sends incremental updates (informational: the client always gets a stream). */
  streaming: boolean;
  version?: string;
  /** The agent's own card as it supplied it (hub registration or upstream well-known), if any. */
  card?: Record<string, unknown>;
  /** Extensions the agent supports or requires, shown in the card the router serves for it. */
  extensions?: AgentExtension[];
}

/** One turn of work handed to an agent. */
export interface ExecuteContext {
  /** Snapshot of the task when the turn starts (status `submitted` or `input-required`). */
  task: Task;
  message: Message;
  /** `metadata.skill`, or the agent's first skill. */
  skill?: string;
  metadata: Metadata;
  /** Aborted when the client cancels or the task times out. */
  signal: AbortSignal;
  /**
   * Resolves true once every update this turn has yielded so far is durable in the store (the hub acks an
   * agent's update only then, so an acked update survives a crash), or false when the store could not take
   * them and the task was failed for it (the turn is aborted).
   */
  flushed(): Promise<boolean>;
}

/**
 * An agent as the engine sees it, whatever its transport. `execute` yields the agent's updates in order
 * and returns when its turn ends; a throw or an early return without a turn-ending status fails the task.
 */
export interface AgentConnector {
  readonly info: AgentInfo;
  isOnline(): boolean;
  execute(ctx: ExecuteContext): AsyncIterable<AgentUpdate>;
  /** Tells the agent a task was canceled (the engine ends the task itself). */
  cancel?(taskId: string): Promise<void>;
}
