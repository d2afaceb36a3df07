/**
 * Public types of the agent SDK. The wire is the hub's protocol 2 (docs/hub-protocol.md): messages and parts
 * in A2A v1.0's model (a part is `{text}`, `{raw}` (base64), `{url}` or `{data}`).
 */

export type Metadata = Record<string, unknown>;

export interface TextPart {
  text: string;
  metadata?: Metadata;
}
/** A file: its bytes (base64, `raw`) or where it is (`url`). */
export interface FilePart {
  raw?: string;
  url?: string;
  filename?: string;
  mediaType?: string;
  metadata?: Metadata;
}
export interface DataPart {
  data: unknown;
  metadata?: Metadata;
}
/** A part in A2A v1.0's model. */
export type Part = TextPart | FilePart | DataPart;

/** A part as the SDK's first version wrote them (A2A v0.1, `type`): still taken wherever parts are sent. */
export type LegacyPart =
  | { type: "text"; text: string; metadata?: Metadata }
  | { type: "file"; file: { name?: string; mimeType?: string; bytes?: string; uri?: string }; metadata?: Metadata }
  | { type: "data"; data: Record<string, unknown>; metadata?: Metadata };

/** The incoming message as `task.execute` hands it over: an A2A v1.0 Message. */
export interface Message {
  messageId?: string;
  role: "ROLE_USER" | "ROLE_AGENT";
  parts: Part[];
  taskId?: string;
  contextId?: string;
  /** Tasks the client refers to. */
  referenceTaskIds?: string[];
  /** Extension URIs the client's message uses. */
  extensions?: string[];
  metadata?: Metadata;
}

/**
 * An artifact to send with `ctx.artifact()` or return from a handler. A part may be given as a plain
 * string (a text part). For a file streamed in chunks, send the chunks with the same `index`,
 * `append: true` on all but the first, and `lastChunk: true` on the last.
 */
export interface ArtifactInput {
  name?: string;
  description?: string;
  parts: Array<Part | LegacyPart | string>;
  /** Names the artifact (A2A's artifactId); else artifacts are told apart by `index`. */
  artifactId?: string;
  index?: number;
  append?: boolean;
  lastChunk?: boolean;
  metadata?: Metadata;
}

/** How a skill is described on the agent's card. `name` also selects it (`metadata.skill`). */
export interface SkillDefinition {
  name: string;
  description: string;
  /** Defaults to `name`. */
  id?: string;
  tags?: string[];
  examples?: string[];
}

/** Everything a handler knows about the task it serves. */
export interface TaskContext {
  taskId: string;
  sessionId: string;
  /** The name of the skill chosen for this task. */
  skill: string;
  /** The task's metadata as the client sent it (agent, skill, anything else). */
  metadata: Metadata;
  /** The whole incoming message (the handler's first argument is its text); after `ask`, the client's answer. */
  message: Message;
  /** Aborted when the client cancels the task or the agent closes. */
  signal: AbortSignal;
  /** Sends an artifact now (`task.artifact`). */
  artifact(artifact: ArtifactInput): Promise<void>;
  /**
   * Sends progress text now (`task.status` working, final false, `textKind: "progress"`): a status line
   * clients show apart from the answer, replaced by the next one.
   */
  status(text: string): Promise<void>;
  /**
   * Asks the client back: the turn ends `input-required` with `text` as its message, and the call resolves
   * with the next message a client sends for this task (a continuation, CONTRACT 14). The handler then goes
   * on in the same task, in a new turn: what it yields or returns next is that turn's answer. While it
   * waits, the task holds none of the agent's `concurrency` slots. Rejects (and nothing more is sent) when
   * the client cancels the task instead, or the agent closes.
   */
  ask(text: string): Promise<Message>;
}

/** States a handler may end a turn in. */
export type FinalState = "completed" | "failed" | "canceled" | "input-required" | "rejected";

/** What a returning handler (or a generator's `return`) may give back. */
export interface SkillResult {
  /** The answer; for a generator, defaults to the joined yielded chunks. */
  text?: string;
  artifacts?: ArtifactInput[];
  /** Sent on `task.complete`, e.g. `{ cost: { inputTokens: 12, usd: 0.0004 } }`. */
  metadata?: Metadata;
  /**
   * Defaults to "completed"; "input-required" asks the client for another turn on the same task (the handler
   * is called again with it, `metadata.continuation` true; `ctx.ask` keeps one handler going instead); "rejected"
   * declines the request (e.g. it lacks an extension the agent requires), with `text` saying why: returned
   * before anything else was sent, the client's send gets an error instead of a task.
   */
  state?: FinalState;
}

export type SkillReturn = string | SkillResult | void | undefined;

/**
 * A skill handler: an async generator (each `yield "text"` streams a chunk; the joined chunks are the
 * final answer) or an async function returning a string or a {@link SkillResult} (one completion).
 */
export type SkillHandler = (
  message: string,
  ctx: TaskContext,
) => AsyncIterable<string> | AsyncGenerator<string, SkillReturn, unknown> | Promise<SkillReturn> | SkillReturn;

/** A logger shaped like pino's or console's; the SDK only calls these four. */
export interface AgentLogger {
  debug(msg: string): void;
  info(msg: string): void;
  warn(msg: string): void;
  error(msg: string): void;
}

export interface ReconnectOptions {
  /** First delay after a drop (ms). Default 500. */
  initialDelayMs?: number;
  /** The delay stops doubling here (ms). Default 30000. */
  maxDelayMs?: number;
}

export interface ConnectAgentOptions {
  /**
   * The hub: `ws://HOST:PORT/hub` (an http(s) URL is accepted and turned into ws(s)). Several hubs (router
   * instances sharing one store) may be listed: the first is dialed first, the next on each reconnect.
   */
  url: string | string[];
  /** The name the agent registers under; clients select it with `--agent NAME` / `metadata.agent`. */
  name: string;
  /** Hub token, when the router requires one. Sent as `Authorization: Bearer` and `auth_token`. */
  token?: string;
  /** Extra agent-card fields (description, version, ...); skills are added from `skill()`. */
  card?: Record<string, unknown>;
  /** Tasks run at once; more wait their turn. Default 8. */
  concurrency?: number;
  /** Reconnect policy, or `false` to give up on the first drop. */
  reconnect?: ReconnectOptions | false;
  /** Heartbeat period (ms). Default 15000. The link is dropped and retried after 3 heartbeats get no frame from the hub. */
  heartbeatMs?: number;
  /** How long the hub gets to answer the registration before the agent redials (ms). Default 10000. */
  registerTimeoutMs?: number;
  /** Frames kept while disconnected; the oldest are dropped past this. Default 10000. */
  maxBufferedFrames?: number;
  /** Whether the agent streams (card `capabilities.streaming`). Default: true if any handler is a generator. */
  streaming?: boolean;
  /** Default: warnings and errors to stderr. */
  logger?: AgentLogger;
}

export interface RegisteredEvent {
  agentId: string;
  connectionId?: string;
  /** true on every registration after the first. */
  reconnected: boolean;
}
export interface DisconnectedEvent {
  code: number;
  reason: string;
}
export interface ReconnectingEvent {
  attempt: number;
  delayMs: number;
}

export interface TaskEvent {
  taskId: string;
  sessionId: string;
  skill: string;
}

export interface AgentEvents {
  registered: [RegisteredEvent];
  /** The hub handed over a task (it may still wait for a free slot, see `concurrency`). */
  task: [TaskEvent];
  disconnected: [DisconnectedEvent];
  reconnecting: [ReconnectingEvent];
  /** A fatal refusal (bad token, name taken) or giving up; the agent stops. */
  error: [Error];
}

/** A connected agent, as {@link connectAgent} returns it. */
export interface Agent {
  /** Adds a skill. Add skills before the agent registers (same tick as connectAgent) so the card lists them. */
  skill(definition: SkillDefinition, handler: SkillHandler): Agent;
  /** Resolves once registered; rejects on a refusal (the error says why) or when closed first. */
  readonly ready: Promise<RegisteredEvent>;
  /** The agent id the hub gave, once registered. */
  readonly agentId: string | undefined;
  /** Whether the agent is registered right now. */
  readonly connected: boolean;
  on<E extends keyof AgentEvents>(event: E, listener: (...args: AgentEvents[E]) => void): Agent;
  off<E extends keyof AgentEvents>(event: E, listener: (...args: AgentEvents[E]) => void): Agent;
  /** Aborts running tasks, stops reconnecting and closes the link. */
  close(): Promise<void>;
}
