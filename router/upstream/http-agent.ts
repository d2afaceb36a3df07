import type { Logger } from "pino";
import type { HttpAgentConfig } from "../config/config.js";
import type { AgentConnector, AgentInfo, ExecuteContext } from "../core/agent.js";
import { TaskError } from "../core/errors.js";
import { isTerminal, type AgentUpdate, type TaskState } from "../core/model.js";
import {
  errorInRouterTerms,
  inRouterTerms,
  resultSchemaId,
  upstreamProtocol,
  type ResultKind,
  type UpstreamIds,
  type UpstreamProtocol,
} from "../dialects/index.js";
import { SchemaRegistry } from "../schema/validator.js";
import { type ClientCall, deadline } from "../client/index.js";
import { MAX_ANSWER_BYTES } from "./limits.js";
import { discoverAgent, parseProtocolChoice, type DiscoveredAgent } from "./card-discovery.js";
import { Retrier, RETRY_DEFAULTS, type RetryPolicy } from "./retry.js";
import { UpstreamUnreachable } from "./transport.js";
import type { Answer, Carriage } from "./carriage.js";
import { HttpCarriage } from "./http-carriage.js";
import { GrpcCarriage } from "./grpc-transport.js";

/** How the router treats its upstream agents (config `limits.upstreamIdleMs`; the rest for tests). */
export interface HttpAgentOptions {
  /** An upstream SSE stream silent (no event, no comment) longer than this fails its task. */
  idleMs?: number;
  /** Backoff of the card lookups of an agent that could not be reached. */
  retry?: RetryPolicy;
  /** The most one answer (a JSON body, one SSE event, one gRPC message) may take; past it the turn fails (tests lower it). */
  maxAnswerBytes?: number;
  /** The compiled schemas results are checked against (the server's own; a new registry if absent). */
  schemas?: SchemaRegistry;
}

const DEFAULTS = { idleMs: 300_000, retry: RETRY_DEFAULTS, maxAnswerBytes: MAX_ANSWER_BYTES };
const CANCEL_TIMEOUT_MS = 5000;
/** How long a card-less (but reachable) agent's defaults are trusted before a turn looks for a card again. */
const REDISCOVER_AFTER_MS = 60_000;

/**
 * An upstream A2A agent whose card is read over HTTP. The router is its client: it forwards each turn
 * (streaming when the agent streams) in the agent's dialect and binding (router/dialects/<dialect>/agent.ts,
 * whose calls that dialect's codec builds), sends them through the binding's carriage (HTTP: the one client
 * transport, router/client; gRPC: grpc-transport.ts), and turns every upstream failure (refused connection,
 * HTTP error, JSON-RPC error, gRPC status, a stream cut short or gone silent) into an error the engine logs
 * as a final `failed` event.
 *
 * Liveness: the agent is online once its server has answered a card lookup (with a card, or without one:
 * a card-less v0.1 agent). Until then, and again after a turn finds it unreachable, it is offline (sends
 * to it are refused as agent unavailable) and its card is looked up again with capped, jittered backoff
 * until it answers or the router closes.
 */
export class HttpAgent implements AgentConnector {
  info: AgentInfo;
  #cfg: HttpAgentConfig;
  #opts: typeof DEFAULTS;
  #schemas: SchemaRegistry;
  #log: Logger;
  #found: DiscoveredAgent | undefined;
  #online = false;
  /** The upstream's own ids per router task, while the task may take another turn or a cancel. */
  #upstreamIds = new Map<string, UpstreamIds>();
  #discovery: Promise<boolean> | undefined;
  #triedAt = 0;
  #retrier: Retrier;
  /** Whether the current outage was logged (once per outage, not once per retry). */
  #outageLogged = false;
  #closing = new AbortController();
  #http: HttpCarriage;
  #grpc: GrpcCarriage;

  constructor(cfg: HttpAgentConfig, logger: Logger, options: HttpAgentOptions = {}) {
    this.#cfg = cfg;
    this.#log = logger;
    const { schemas, ...rest } = options;
    this.#opts = { ...DEFAULTS, ...rest };
    this.#schemas = schemas ?? new SchemaRegistry();
    this.#retrier = new Retrier(() => this.discover(), this.#opts.retry);
    this.#http = new HttpCarriage(cfg.id, this.#opts);
    this.#grpc = new GrpcCarriage(cfg.id, this.#opts);
    this.info = { id: cfg.id, name: cfg.id, description: `Upstream A2A agent at ${cfg.url}`, transport: "http", skills: [], streaming: true };
  }

  /**
   * Reads the agent's card; concurrent callers share one lookup. Resolves whether the agent was reached;
   * an unreachable agent is looked up again later, on its own.
   */
  discover(): Promise<boolean> {
    this.#discovery ??= this.#discover().finally(() => (this.#discovery = undefined));
    return this.#discovery;
  }

  async #discover(): Promise<boolean> {
    this.#triedAt = Date.now();
    let found = await discoverAgent(this.#cfg.url, this.#cfg.headers, this.#cfg.protocol, this.#closing.signal);
    // A gRPC agent without an HTTP server for its card (config "1.0+grpc") is there when its channel connects.
    if (!found.reached && found.binding === "GRPC") found = { ...found, reached: await this.#grpc.connects(found.endpoint) };
    if (this.#closing.signal.aborted) return false;
    if (!found.reached) {
      this.#offline("no card location answered");
      return false;
    }
    this.#found = found;
    this.#retrier.reset();
    this.#outageLogged = false;
    if (!this.#online) this.#log.info({ agent: this.#cfg.id, url: this.#cfg.url, dialect: found.dialect, binding: found.binding }, "upstream agent is online");
    this.#online = true;
    const card = found.card;
    const skills = Array.isArray(card?.skills) ? (card.skills as Array<Record<string, unknown>>) : [];
    this.info = {
      ...this.info,
      name: typeof card?.name === "string" ? card.name : this.#cfg.id,
      description: typeof card?.description === "string" ? card.description : this.info.description,
      streaming: found.streaming,
      skills: skills.map((s) => ({
        id: String(s.id ?? s.name ?? "default"),
        name: String(s.name ?? s.id ?? "default"),
        description: String(s.description ?? ""),
        ...(Array.isArray(s.tags) && { tags: s.tags.map(String) }),
        ...(Array.isArray(s.examples) && { examples: s.examples.map(String) }),
      })),
      ...(typeof card?.version === "string" && { version: card.version }),
      ...(card && { card }),
    };
    if (!card) {
      const over = found.binding === "JSONRPC" ? "" : ` over ${found.binding}`;
      this.#log.warn({ agent: this.#cfg.id, url: this.#cfg.url }, `no agent card found; assuming a ${found.dialect} streaming agent${over}`);
    }
    return true;
  }

  /** Marks the agent offline and keeps looking for it. */
  #offline(why: string): void {
    if (!this.#outageLogged) {
      this.#outageLogged = true;
      this.#log.warn({ agent: this.#cfg.id, url: this.#cfg.url, why }, "upstream agent is unreachable; retrying with backoff");
    }
    this.#online = false;
    this.#retrier.schedule();
  }

  isOnline(): boolean {
    return this.#online;
  }

  /** Stops the retries and any lookup in flight (router shutdown). */
  close(): void {
    this.#closing.abort();
    this.#retrier.stop();
    this.#grpc.close();
  }

  /** Sends one call in the agent's binding (its carriage), with the agent's headers and the interface's tenant. */
  #exchange(found: Pick<DiscoveredAgent, "binding" | "endpoint" | "tenant">, call: ClientCall, signal: AbortSignal, stream: boolean): AsyncGenerator<Answer> {
    const carriage: Carriage = found.binding === "GRPC" ? this.#grpc : this.#http;
    return carriage.exchange(found.endpoint, call, {
      signal,
      stream,
      ...(this.#cfg.headers && { headers: this.#cfg.headers }),
      ...(found.tenant !== undefined && { tenant: found.tenant }),
    });
  }

  async *execute(ctx: ExecuteContext): AsyncGenerator<AgentUpdate> {
    // A card-less agent runs on the defaults; now and then a turn looks for a card again, in the background.
    if (this.#found && !this.#found.card && !this.#discovery && Date.now() - this.#triedAt > REDISCOVER_AFTER_MS) {
      void this.discover();
    }
    const known = this.#upstreamIds.get(ctx.task.id) ?? {};
    try {
      yield* this.#turn(ctx, known);
    } catch (err) {
      // An agent's error may quote its own ids (a TaskNotFound names its task): clients see the router's.
      throw errorInRouterTerms(err, { taskId: ctx.task.id, contextId: ctx.task.contextId, upstream: known });
    }
  }

  /** One turn: the call in the agent's dialect and binding, its answers read and put in the router's terms. */
  async *#turn(ctx: ExecuteContext, known: UpstreamIds): AsyncGenerator<AgentUpdate> {
    const found = this.#found ?? this.#assumed();
    const protocol = upstreamProtocol(found.dialect, found.binding);
    const call = protocol.turn(ctx, found.streaming, known.taskId);
    const answers = this.#exchange(found, call, ctx.signal, found.streaming);
    const read = { ids: known, protocol, ctx };
    let lastState: TaskState | undefined;
    let index = 0;
    const followUp = known.taskId !== undefined;
    const updatesOf = ({ kind, result }: Answer) =>
      kind === "event" ? protocol.fromStreamResult(result, { index: index++, followUp }) : protocol.fromSendResult(result);
    try {
      for await (const answer of answers) {
        for (const u of this.#translate(read, answer.kind, answer.result, () => updatesOf(answer))) {
          if (u.kind === "status") lastState = u.status.state;
          yield u;
        }
      }
    } catch (err) {
      if (err instanceof UpstreamUnreachable) this.#offline(err.message);
      throw err;
    } finally {
      await answers.return(undefined);
      // A finished task takes no more turns and no cancel; a canceled or timed-out one still gets the cancel.
      if (lastState !== undefined && isTerminal(lastState) && !ctx.signal.aborted) this.#upstreamIds.delete(ctx.task.id);
    }
  }

  /** What a turn speaks before any card was read: the configured protocol, else v0.1 over JSON-RPC. */
  #assumed(): Pick<DiscoveredAgent, "dialect" | "binding" | "streaming" | "endpoint" | "tenant"> {
    const chosen = this.#cfg.protocol ? parseProtocolChoice(this.#cfg.protocol) : undefined;
    return { dialect: chosen?.dialect ?? "v0.1", binding: chosen?.binding ?? "JSONRPC", streaming: true, endpoint: this.#cfg.url };
  }

  /**
   * One upstream result as internal updates in the router's terms: the upstream's ids learned first (the
   * first result names them), then every update rewritten to the router's ids with its text kind named.
   * A result not in its dialect's shape fails the turn naming the field, before a translator reads it.
   */
  #translate(
    read: { ids: UpstreamIds; protocol: UpstreamProtocol; ctx: ExecuteContext },
    kind: ResultKind,
    result: unknown,
    updates: () => AgentUpdate[],
  ): AgentUpdate[] {
    const { ids, protocol, ctx } = read;
    const issue = this.#schemas.check(resultSchemaId(protocol.dialect, kind), result, "result");
    if (issue) throw new Error(`Upstream agent ${this.#cfg.id} sent a result that is not A2A ${protocol.dialect}: ${issue.message}`);
    const named = protocol.upstreamIds?.(result) ?? {};
    ids.taskId ??= named.taskId;
    ids.contextId ??= named.contextId;
    if (ids.taskId !== undefined && ids.taskId !== ctx.task.id) this.#upstreamIds.set(ctx.task.id, ids);
    let out: AgentUpdate[];
    try {
      out = updates();
    } catch (err) {
      // Our own translators say what was wrong; a TypeError from an odd shape must not reach a client as is.
      if (err instanceof TaskError || (err instanceof Error && err.constructor === Error)) throw err;
      throw new Error(`Upstream agent ${this.#cfg.id} sent a result the router cannot read`);
    }
    const scope = { taskId: ctx.task.id, contextId: ctx.task.contextId, upstream: ids, workingTextKind: protocol.workingTextKind };
    return out.map((u) => inRouterTerms(u, scope));
  }

  async cancel(taskId: string): Promise<void> {
    const found = this.#found;
    if (!found) return;
    const call = upstreamProtocol(found.dialect, found.binding).cancel(this.#upstreamIds.get(taskId)?.taskId ?? taskId);
    const limit = deadline(CANCEL_TIMEOUT_MS);
    const answers = this.#exchange(found, call, limit.signal, false);
    try {
      // The answer (the canceled Task) tells the router nothing it does not know: the call was made.
      await answers.next();
    } finally {
      await answers.return(undefined);
      limit.clear();
      this.#upstreamIds.delete(taskId);
    }
  }
}
