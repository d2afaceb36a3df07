import type { CardAudience } from "../cards/index.js";
import { TaskError } from "../core/errors.js";
import { isTerminal, TURN_END_STATES, type Task } from "../core/model.js";
import { dialectByName, type Dialect, type Operation, type OutboundEvent } from "../dialects/index.js";
import type { SchemaRegistry } from "../schema/validator.js";
import type { TurnOnce } from "../service/idempotency.js";
import type { Caller, Scope } from "../service/scope.js";
import type { TaskService } from "../service/task-service.js";
import { parseLastEventId } from "../sse/format.js";
import type { StreamOpening, StreamReply } from "./stream-reply.js";

/** Who asks, and the per-call facts a binding reads from its transport. */
export interface RequestContext {
  /** The authenticated client (API keys configured). */
  caller?: Caller;
  /** The agent the endpoint is fixed to (`/agents/{agentId}`); absent: the router's endpoint. */
  agentId?: string;
  /** Where a stream resumes: the `Last-Event-ID` the client sent (a logged seq), unparsed. */
  lastEventId?: string;
  /** `scheme://host[:port]` the client used, for cards that point back at the router. */
  origin?: string;
  /** Ends reading a stream's events (the client went away); never the task. */
  signal?: AbortSignal;
  /** A send's `Idempotency-Key` and the digest of the request it came with (service/idempotency.ts). */
  once?: TurnOnce;
}

/** An operation's answer: one value in the request's dialect, or a stream of its events. */
export type HandlerResult = { kind: "value"; value: unknown } | { kind: "stream"; reply: StreamReply };

export interface RequestHandlerDeps {
  service: TaskService;
  schemas: SchemaRegistry;
  /** GetExtendedAgentCard for an agent (undefined = the router's card); absent: extended-card-not-configured. */
  extendedCard?: (agentId: string | undefined, origin?: string, audience?: CardAudience) => unknown;
}

/**
 * The one A2A request handler every binding calls (JSON-RPC in three dialects, the v1.0 REST binding, and
 * gRPC next): `(dialect, operation, params, caller) -> value | event stream`. It validates the params against
 * the dialect's schema, reads them with the dialect, calls the task service with the dialect's policy, and
 * renders the answer in the dialect. A binding only translates its wire onto this (names, paths, envelopes)
 * and frames what comes back; failures are TaskErrors, which each binding maps in its one table.
 */
export class A2ARequestHandler {
  readonly #deps: RequestHandlerDeps;

  constructor(deps: RequestHandlerDeps) {
    this.#deps = deps;
  }

  /**
   * Runs one operation. `dialect`: the request's dialect; several (a JSON-RPC method that v0.1 and v0.3 both
   * name): the params are checked as the first's, and the answer is written in the dialect the named task
   * was created in.
   */
  async handle(dialect: Dialect | readonly Dialect[], operation: Operation, params: unknown, ctx: RequestContext = {}): Promise<HandlerResult> {
    const candidates: readonly Dialect[] = Array.isArray(dialect) ? dialect : [dialect as Dialect];
    let chosen = candidates[0]!;
    // v1.0 reads proto field names (`task_id`) as ProtoJSON allows; other dialects read their params as sent.
    params = chosen.readParams?.(params) ?? params;
    const bad = this.#deps.schemas.check(chosen.paramsSchemaId(methodOf(chosen, operation)), params);
    if (bad) throw TaskError.invalidParams(bad.message, bad.field);
    const scope = scopeOf(ctx);
    if (candidates.length > 1) {
      const task = await this.#deps.service.get(chosen.toTaskRef(params).taskId, scope).catch(() => undefined);
      if (task) chosen = candidates.find((d) => d.name === task.dialect) ?? dialectByName(task.dialect);
    }
    return this.#operate(chosen, operation, params, scope, ctx);
  }

  async #operate(dialect: Dialect, operation: Operation, params: unknown, scope: Scope, ctx: RequestContext): Promise<HandlerResult> {
    const { service } = this.#deps;
    switch (operation) {
      case "SendMessage": {
        const req = dialect.toSendRequest(params);
        const once = ctx.once ?? {};
        const task = dialect.returnsImmediately?.(params)
          ? (await service.start(req, dialect, scope, once)).task
          : await service.send(req, dialect, scope, once);
        return value(dialect.renderSendResult(task, req.historyLength));
      }
      case "SendStreamingMessage": {
        const { task, events } = await service.stream(dialect.toSendRequest(params), dialect, scope, ctx.signal, ctx.once);
        return stream(dialect, dialect.streamStartsWithTask ? [{ value: streamStart(dialect, task) }] : [], events);
      }
      case "SubscribeToTask":
        return this.#subscribe(dialect, params, scope, ctx);
      case "GetTask": {
        const ref = dialect.toTaskRef(params);
        return value(dialect.renderTask(await service.get(ref.taskId, scope), ref.historyLength));
      }
      case "CancelTask":
        return value(dialect.renderTask(await service.cancel(dialect.toTaskRef(params).taskId, scope)));
      case "ListTasks": {
        if (!dialect.toListQuery || !dialect.renderList) throw TaskError.unsupportedOperation(`ListTasks in A2A ${dialect.name}`);
        const q = dialect.toListQuery(params);
        const page = await service.list(q, scope);
        const options = { includeArtifacts: q.includeArtifacts, totalSize: page.totalSize };
        return value(dialect.renderList(page.tasks, page.nextPageToken, page.pageSize, q.historyLength, options));
      }
      case "CreateTaskPushNotificationConfig": {
        const ref = dialect.toPushRef(params, operation);
        return value(dialect.renderPushConfig(ref.taskId, await service.setPushConfig(ref.taskId, ref.config!, dialect, scope)));
      }
      case "GetTaskPushNotificationConfig": {
        const ref = dialect.toPushRef(params, operation);
        return value(dialect.renderPushConfig(ref.taskId, await service.getPushConfig(ref.taskId, ref.configId, scope)));
      }
      case "ListTaskPushNotificationConfigs": {
        const ref = dialect.toPushRef(params, operation);
        const configs = await service.listPushConfigs(ref.taskId, scope);
        return value(
          dialect.renderPushConfigList ? dialect.renderPushConfigList(ref.taskId, configs) : configs.map((c) => dialect.renderPushConfig(ref.taskId, c)),
        );
      }
      case "DeleteTaskPushNotificationConfig": {
        const ref = dialect.toPushRef(params, operation);
        await service.deletePushConfig(ref.taskId, ref.configId, scope);
        return value(dialect.renderPushDeleted ? dialect.renderPushDeleted() : null);
      }
      case "GetExtendedAgentCard": {
        if (!this.#deps.extendedCard) throw TaskError.extendedCardNotConfigured();
        return value(this.#deps.extendedCard(ctx.agentId, ctx.origin, dialect.name === "v1.0" ? "v1.0" : "all"));
      }
    }
  }

  /**
   * Resumes a task's stream: after `Last-Event-ID`, exactly the logged events after it; otherwise the task as
   * it is now (v1.0: the Task; v0.1/v0.3: its artifacts and status as events), then its live events, through
   * the turns that follow while it waits for input (v1.0 3.1.6). A finished task cannot be subscribed to in a dialect that says so (v1.0 spec 3.1.6).
   */
  async #subscribe(dialect: Dialect, params: unknown, scope: Scope, ctx: RequestContext): Promise<HandlerResult> {
    const ref = dialect.toTaskRef(params);
    const last = parseLastEventId(ctx.lastEventId);
    if (last instanceof Error) throw TaskError.invalidParams(last.message, "Last-Event-ID");
    const { service } = this.#deps;
    if (last !== undefined) {
      const { events } = await service.resubscribe(ref.taskId, scope, { afterSeq: last, signal: ctx.signal });
      return stream(dialect, [], events);
    }
    // Its events are read only once iterated: a refused subscription leaves nothing behind.
    const { task, events, lastStatusMetadata } = await service.resubscribe(ref.taskId, scope, { signal: ctx.signal });
    // v1.0: any task that is not terminal may be subscribed to (one waiting for input gets its Task).
    if (dialect.finishedResubscribe === "unsupported" && isTerminal(task.status.state)) {
      events?.close();
      throw TaskError.unsupportedOperation(`task ${task.id} is already ${task.status.state}`, { taskId: task.id, state: task.status.state });
    }
    if (dialect.streamStartsWithTask) return stream(dialect, [{ value: streamStart(dialect, task) }], events);
    const turnOver = TURN_END_STATES.has(task.status.state);
    const base = { taskId: task.id, contextId: task.contextId, seq: undefined };
    // The closing status of a finished turn carries what its logged final event carried (cost, history).
    // A task waiting for input keeps its stream open for the turns to come: its snapshot is not final.
    const status: OutboundEvent = {
      ...base,
      kind: "status",
      status: task.status,
      final: events === undefined,
      ...(lastStatusMetadata && { metadata: lastStatusMetadata }),
    };
    const artifacts: OutboundEvent[] = task.artifacts.map((artifact) => ({ ...base, kind: "artifact", artifact }));
    const snapshot = turnOver ? [...artifacts, status] : [status, ...artifacts];
    return stream(
      dialect,
      snapshot.map((event) => ({ event })),
      events,
    );
  }
}

/** The dialect's name for `operation` (its params schema is the method's; aliases share one). */
function methodOf(dialect: Dialect, operation: Operation): string {
  for (const [method, op] of Object.entries(dialect.methods)) if (op === operation) return method;
  throw TaskError.unsupportedOperation(`${operation} in A2A ${dialect.name}`);
}

function scopeOf(ctx: RequestContext): Scope {
  return { ...(ctx.caller && { caller: ctx.caller }), ...(ctx.agentId !== undefined && { agentId: ctx.agentId }) };
}

/** The opening value of a stream that starts with the Task (v1.0: `{task}`). */
function streamStart(dialect: Dialect, task: Task): unknown {
  return dialect.renderStreamStart ? dialect.renderStreamStart(task) : dialect.renderTask(task);
}

function stream(dialect: Dialect, opening: StreamOpening[], events: StreamReply["events"]): HandlerResult {
  return { kind: "stream", reply: { dialect, opening, ...(events && { events }) } };
}

function value(v: unknown): HandlerResult {
  return { kind: "value", value: v };
}
