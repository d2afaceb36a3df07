import type { AgentConnector, AgentInfo } from "../core/agent.js";
import type { AgentDirectory } from "../core/agent-directory.js";
import type { TaskEngine } from "../core/engine.js";
import { TaskError } from "../core/errors.js";
import type { EventStream } from "../core/event-stream.js";
import type { ExpiringRecordStore } from "../core/store.js";
import { isTerminal, TURN_END_STATES, type PushNotificationConfig, type SendRequest, type Task } from "../core/model.js";
import type { DialectPolicy } from "./dialect-policy.js";
import type { Caller, Scope } from "./scope.js";
import { checkPushConfigId, checkSendIds } from "./id-limits.js";
import { ConversationSessions } from "./conversations.js";
import { DEFAULT_IDEMPOTENCY_TTL_MS, idempotencyClaim, messageClaim, requestDigest, TurnClaims, type TurnClaim, type TurnOnce } from "./idempotency.js";
import { decodePageToken, encodePageToken } from "./page-token.js";

/** Webhook configs per task (the push notifier); absent: push operations answer "not supported". */
export interface PushService {
  /** `afterSeq`: also deliver the task's logged events after it (a config given with the message gets the whole turn). */
  set(taskId: string, config: PushNotificationConfig, afterSeq?: number): Promise<PushNotificationConfig>;
  list(taskId: string): Promise<PushNotificationConfig[]>;
  delete(taskId: string, configId: string): Promise<void>;
}

/** Every agent the service may route to, with the listing the faces show. */
export interface AgentCatalog extends AgentDirectory {
  list(): AgentConnector[];
}

export interface TaskServiceDeps {
  engine: TaskEngine;
  agents: AgentCatalog;
  /** The agent of a request that names none. */
  defaultAgent: string;
  push?: PushService;
  /** Where idempotency keys and message ids are remembered (the store's records); absent: requests are not deduplicated. */
  records?: ExpiringRecordStore;
  /** How long they are remembered (config `idempotency.ttlMs`). */
  idempotencyTtlMs?: number;
}

/** A turn that was started: the task as stored, and the seq after which the turn's events are logged. */
export interface StartedTurn {
  task: Task;
  fromSeq: number;
  /** The turn an earlier request with the same Idempotency-Key or messageId started (not run again). */
  replayed?: boolean;
}

/** Where a resubscription starts: a logged seq (`Last-Event-ID`), or the task's current state. */
export interface Resubscription {
  task: Task;
  /**
   * The events after `afterSeq`, then live ones, until the task ends: a turn that ends waiting for input is
   * followed by the next turn's events (absent: the task is finished, nothing is live).
   */
  events?: EventStream;
  /** The metadata of the task's last logged status, for a closing status of a finished turn (cost, history). */
  lastStatusMetadata?: Record<string, unknown>;
}

export interface ListQuery {
  contextId?: string;
  state?: string;
  pageSize?: number;
  pageToken?: string;
  /** ISO time (v1.0 `statusTimestampAfter`). */
  statusTimestampAfter?: string;
}

export interface TaskPage {
  tasks: Task[];
  nextPageToken: string;
  pageSize: number;
  totalSize: number;
}

/** ListTasks page sizes: absent means the default; others are clamped into the range. */
const PAGE_SIZE = { default: 50, min: 1, max: 100 };

/**
 * The transport-free task service: every face (JSON-RPC in three dialects, REST, OpenAI chat completions,
 * the AI SDK UI stream, the chat page) calls these plain async functions and iterators over the engine's own
 * types, so the rules (agent selection, who sees which task, page sizes, waiting for a turn) live once.
 * Failures are TaskErrors with a reason; each face maps reasons to its wire.
 */
export class TaskService {
  #deps: TaskServiceDeps;
  #claims: TurnClaims | undefined;
  #conversations: ConversationSessions | undefined;

  constructor(deps: TaskServiceDeps) {
    this.#deps = deps;
    if (deps.records) this.#claims = new TurnClaims(deps.records, deps.idempotencyTtlMs ?? DEFAULT_IDEMPOTENCY_TTL_MS);
    if (deps.records) this.#conversations = new ConversationSessions(deps.records);
  }

  /** The session of a chat conversation this caller had answered by `agentId`, by its digest (service/conversations.ts). */
  async conversationSession(agentId: string, digest: string, scope: Scope = {}): Promise<string | undefined> {
    return this.#conversations?.find(scope.caller?.principal, agentId, digest);
  }

  /** Records that the answered conversation with digest `digest` is session `sessionId`, for the request that goes on with it. */
  async rememberConversation(agentId: string, digest: string, sessionId: string, scope: Scope = {}): Promise<void> {
    await this.#conversations?.remember(scope.caller?.principal, agentId, digest, sessionId);
  }

  /** The id of the agent a request that names none goes to, when the caller may use it. */
  defaultAgentId(caller?: Caller): string | undefined {
    return this.findAgent(this.#deps.defaultAgent, caller)?.info.id;
  }

  /** The agents a caller may use (all of them, unless its key is limited to some). */
  listAgents(caller?: Caller): AgentConnector[] {
    return this.#deps.agents.list().filter((a) => mayUse(caller, a.info));
  }

  /** The agent named by id or name, as the caller may see it; undefined when unknown or not allowed. */
  findAgent(idOrName: string, caller?: Caller): AgentConnector | undefined {
    const agent = this.#deps.agents.find(idOrName);
    return agent && mayUse(caller, agent.info) ? agent : undefined;
  }

  /**
   * Starts a turn (a new task, or the next turn of a task waiting for input) and returns as soon as it is
   * stored. The agent is the path's, else `metadata.agent`, else the default. `dialect`: the request's
   * dialect, as its caller knows it (the task is created in it; errors name its fields). `once`: the request's
   * Idempotency-Key (service/idempotency.ts): a request that another with the same key (or, in a dialect that
   * says so, the same messageId in the same context) already started gets that turn, `replayed`, not a new one.
   */
  async start(req: SendRequest, dialect: DialectPolicy, scope: Scope = {}, once: TurnOnce = {}): Promise<StartedTurn> {
    return this.#once(req, dialect, scope, once, false);
  }

  /** Starts a turn and waits for it to end (up to the task timeout, which fails the task): a blocking send. */
  async send(req: SendRequest, dialect: DialectPolicy, scope: Scope = {}, once: TurnOnce = {}): Promise<Task> {
    const started = await this.#once(req, dialect, scope, once, true);
    return (await this.#deps.engine.turnResult(started)) ?? started.task;
  }

  /** Starts the turn, unless the request's identities name one already started (see `start`). */
  async #once(req: SendRequest, dialect: DialectPolicy, scope: Scope, once: TurnOnce, blocking: boolean): Promise<StartedTurn> {
    const claims = this.#claims && this.#claimsOf(req, dialect, scope, once);
    if (!claims?.length) return this.#start(req, dialect, scope, blocking);
    return this.#claims!.once(
      claims,
      // The started turn itself, not a copy: the engine knows a turn by this object (turnResult).
      () => this.#start(req, dialect, scope, blocking),
      async ({ taskId, fromSeq }) => {
        const task = await this.#deps.engine.getTask(taskId);
        // The turn is another endpoint's (`/agents/{id}`) or gone: the key names something this request cannot get.
        if (!task || !this.#sees(task, scope)) throw TaskError.idempotencyConflict(claims[0]!.value);
        return { task, fromSeq, replayed: true };
      },
    );
  }

  /** The identities a send claims: its Idempotency-Key, and its messageId within its context where the dialect dedupes them. */
  #claimsOf(req: SendRequest, dialect: DialectPolicy, scope: Scope, once: TurnOnce): TurnClaim[] {
    const owner = scope.caller?.principal;
    const claims: TurnClaim[] = [];
    if (once.idempotencyKey !== undefined) claims.push(idempotencyClaim(owner, once.idempotencyKey, once.requestDigest ?? requestDigest(req)));
    // A message that names no context starts a new one: it cannot repeat one sent there (CONTRACT 14, docs/idempotency.md).
    const context = req.contextId ?? req.message.contextId ?? (req.taskId === undefined ? undefined : `task:${req.taskId}`);
    const { messageId } = req.message;
    if (dialect.dedupesMessageIds && context !== undefined && messageId) claims.push(messageClaim(owner, context, messageId));
    return claims;
  }

  async #start(req: SendRequest, dialect: DialectPolicy, scope: Scope, blocking: boolean): Promise<StartedTurn> {
    // A continuation must name a task this caller may see; in a dialect whose clients name their tasks (v0.1)
    // it may also name a new one. Checked on the task as the engine reads it to start the turn (one read).
    const admit = (existing: Task | undefined): void => {
      if (existing) this.#visible(existing, scope);
      else if (dialect.clientNamesTasks === false) throw TaskError.taskNotFound(req.taskId!);
    };
    checkSendIds(req, dialect.idFields);
    // A message that names no task but the context of one waiting for input answers that task (CONTRACT 14).
    if (req.taskId === undefined && req.contextId !== undefined) {
      const waiting = await this.#waitingTask(req.contextId, scope);
      if (waiting) req = { ...req, taskId: waiting.id };
    }
    // metadata.agent and metadata.skill pick what runs: another type is a mistake, not "the default".
    for (const key of ["agent", "skill"] as const) {
      const value = req.metadata[key];
      if (value !== undefined && typeof value !== "string") throw TaskError.invalidParams(`metadata.${key} must be string`, `metadata.${key}`);
    }
    const agent = this.#pickAgent(scope, req.agentId ?? (req.metadata.agent as string | undefined));
    const owner = scope.caller?.principal;
    const started = await this.#deps.engine.startTurn(owner === undefined ? req : { ...req, owner }, dialect.name, agent, { blocking, admit });
    if (req.pushNotification) await this.#push().set(started.task.id, req.pushNotification, started.fromSeq);
    return started;
  }

  /** Starts a turn and streams its events as they are logged. */
  async stream(
    req: SendRequest,
    dialect: DialectPolicy,
    scope: Scope = {},
    signal?: AbortSignal,
    once: TurnOnce = {},
  ): Promise<StartedTurn & { events: EventStream }> {
    const started = await this.start(req, dialect, scope, once);
    return { ...started, events: this.#deps.engine.events(started.task.id, started.fromSeq, signal) };
  }

  /**
   * Resumes a task's stream. With `afterSeq` (a client's `Last-Event-ID`): exactly the logged events after
   * it, then live ones. Without: the task's state now, and the live events after it. Either stays open while
   * the task waits for input, and ends when the task does.
   */
  async resubscribe(taskId: string, scope: Scope = {}, opts: { afterSeq?: number; signal?: AbortSignal } = {}): Promise<Resubscription> {
    const task = await this.get(taskId, scope);
    const { engine } = this.#deps;
    if (opts.afterSeq !== undefined) {
      if (opts.afterSeq > task.lastSeq) {
        throw TaskError.invalidParams(`Last-Event-ID ${opts.afterSeq} is beyond the task's last event ${task.lastSeq}`, "Last-Event-ID");
      }
      return { task, events: engine.events(task.id, opts.afterSeq, opts.signal, { untilTaskEnds: true }) };
    }
    if (TURN_END_STATES.has(task.status.state)) {
      const [last] = await engine.readEvents(task.id, task.lastSeq - 1, 1);
      const metadata = last?.kind === "status" && last.metadata ? { lastStatusMetadata: last.metadata } : {};
      if (isTerminal(task.status.state)) return { task, ...metadata };
      // Waiting for input (or auth): the subscription stays open through the turns that follow (A2A v1.0 3.1.6).
      return { task, ...metadata, events: engine.events(task.id, task.lastSeq, opts.signal, { untilTaskEnds: true }) };
    }
    return { task, events: engine.events(task.id, task.lastSeq, opts.signal, { untilTaskEnds: true }) };
  }

  /** The task's events after `afterSeq` (log, then live), ending with the turn that nothing follows. */
  async events(taskId: string, afterSeq: number, scope: Scope = {}, signal?: AbortSignal): Promise<EventStream> {
    await this.get(taskId, scope);
    return this.#deps.engine.events(taskId, afterSeq, signal);
  }

  /** The task, if the caller may see it. */
  async get(taskId: string, scope: Scope = {}): Promise<Task> {
    const task = await this.#deps.engine.getTask(taskId);
    if (!task) throw TaskError.taskNotFound(taskId);
    return this.#visible(task, scope);
  }

  /** The running turn of a session (chat resume): the newest task of the context whose turn has not ended. */
  async runningTurn(contextId: string, scope: Scope = {}): Promise<StartedTurn | undefined> {
    const { engine } = this.#deps;
    const [task] = await engine.listTasks({ contextId, ...this.#ownerFilter(scope), limit: 1 });
    if (!task || TURN_END_STATES.has(task.status.state)) return undefined;
    return { task, fromSeq: await engine.turnStart(task) };
  }

  /** Cancels a task: tells its agent and ends it `canceled`. */
  async cancel(taskId: string, scope: Scope = {}): Promise<Task> {
    await this.get(taskId, scope);
    return this.#deps.engine.cancel(taskId);
  }

  /** One page of the caller's tasks, newest first (v1.0 ListTasks). */
  async list(query: ListQuery, scope: Scope = {}): Promise<TaskPage> {
    const { engine } = this.#deps;
    const pageSize = Math.min(Math.max(query.pageSize ?? PAGE_SIZE.default, PAGE_SIZE.min), PAGE_SIZE.max);
    const filter = {
      contextId: query.contextId,
      state: query.state,
      agentId: scope.agentId === undefined ? undefined : (this.#deps.agents.find(scope.agentId)?.info.id ?? scope.agentId),
      statusSinceMs: statusSince(query.statusTimestampAfter),
      ...this.#ownerFilter(scope),
    };
    const before = query.pageToken ? decodePageToken(query.pageToken) : undefined;
    // One task more than the page tells whether another page follows.
    const [tasks, totalSize] = await Promise.all([engine.listTasks({ ...filter, before, limit: pageSize + 1 }), engine.countTasks(filter)]);
    const page = tasks.slice(0, pageSize);
    const nextPageToken = tasks.length > pageSize ? encodePageToken(page[page.length - 1]!) : "";
    return { tasks: page, nextPageToken, pageSize, totalSize };
  }

  /** Sets a push config of the task; `dialect`: the caller's, whose field names an error uses. */
  async setPushConfig(taskId: string, config: PushNotificationConfig, dialect: DialectPolicy, scope: Scope = {}): Promise<PushNotificationConfig> {
    checkPushConfigId(config, dialect.idFields);
    await this.get(taskId, scope);
    return this.#push().set(taskId, config);
  }

  /** The task's push config with `configId`, or its first one. */
  async getPushConfig(taskId: string, configId: string | undefined, scope: Scope = {}): Promise<PushNotificationConfig> {
    const configs = await this.listPushConfigs(taskId, scope);
    const config = configId ? configs.find((c) => c.id === configId) : configs[0];
    if (!config) throw TaskError.invalidParams(`no push notification config for task ${taskId}`, "id");
    return config;
  }

  async listPushConfigs(taskId: string, scope: Scope = {}): Promise<PushNotificationConfig[]> {
    await this.get(taskId, scope);
    return this.#push().list(taskId);
  }

  async deletePushConfig(taskId: string, configId: string | undefined, scope: Scope = {}): Promise<void> {
    await this.get(taskId, scope);
    await this.#push().delete(taskId, configId ?? "default");
  }

  /** The newest task of the context this scope may see that waits for input. */
  async #waitingTask(contextId: string, scope: Scope): Promise<Task | undefined> {
    const agentId = scope.agentId === undefined ? undefined : (this.#deps.agents.find(scope.agentId)?.info.id ?? scope.agentId);
    const [task] = await this.#deps.engine.listTasks({
      contextId,
      state: "input-required",
      ...(agentId !== undefined && { agentId }),
      ...this.#ownerFilter(scope),
      limit: 1,
    });
    return task;
  }

  #pickAgent(scope: Scope, named: string | undefined): AgentConnector {
    const wanted = scope.agentId ?? named ?? this.#deps.defaultAgent;
    const agent = this.findAgent(wanted, scope.caller);
    if (!agent) throw TaskError.unknownAgent(wanted);
    if (!agent.isOnline()) throw TaskError.agentUnavailable(agent.info.id);
    return agent;
  }

  /**
   * The task if this scope may see it; otherwise "not found", never "forbidden", so a caller learns nothing
   * of other keys' tasks: `/agents/{id}` sees that agent's tasks, a key sees the tasks it created.
   */
  #visible(task: Task, scope: Scope): Task {
    if (!this.#sees(task, scope)) throw TaskError.taskNotFound(task.id);
    return task;
  }

  #sees(task: Task, scope: Scope): boolean {
    if (scope.agentId !== undefined && this.#deps.agents.find(scope.agentId)?.info.id !== task.agentId) return false;
    const principal = scope.caller?.principal;
    return principal === undefined || task.owner === principal;
  }

  #ownerFilter(scope: Scope): { owner?: string } {
    const principal = scope.caller?.principal;
    return principal === undefined ? {} : { owner: principal };
  }

  #push(): PushService {
    if (!this.#deps.push) throw TaskError.pushNotSupported();
    return this.#deps.push;
  }
}

function mayUse(caller: Caller | undefined, info: AgentInfo): boolean {
  return !caller?.agents || caller.agents.includes(info.id) || caller.agents.includes(info.name);
}

/** v1.0 ListTasks `statusTimestampAfter` as epoch ms (the schema checked its form; this catches what it lets by). */
function statusSince(iso: string | undefined): number | undefined {
  if (iso === undefined) return undefined;
  const ms = Date.parse(iso);
  if (Number.isNaN(ms)) throw TaskError.invalidParams(`statusTimestampAfter is not a time: "${iso}"`, "statusTimestampAfter");
  return ms;
}
