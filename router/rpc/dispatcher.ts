import { TaskError } from "../core/errors.js";
import type { EventStream } from "../core/event-stream.js";
import { isTerminal, TURN_END_STATES, type Task } from "../core/model.js";
import { assertA2AVersion, bindMethod, dialectByName, type Dialect, type OutboundEvent } from "../dialects/index.js";
import type { SchemaRegistry } from "../schema/validator.js";
import type { TaskService } from "../service/task-service.js";
import type { Caller, Scope } from "../service/scope.js";
import { parseLastEventId } from "../sse/format.js";
import { failure, success, type RpcId, type RpcResponse } from "../jsonrpc/envelope.js";
import { RpcError, toRpcError } from "./errors.js";
import { eventMessage, MessageStream, valueMessage, type StreamMessage } from "./stream-render.js";

/** Per-call facts from the transport. */
export interface CallContext {
  /** `A2A-Version` request header. */
  a2aVersion?: string;
  /** `Last-Event-ID` request header. */
  lastEventId?: string;
  /** Agent fixed by the path (`POST /agents/{agentId}`). */
  pathAgentId?: string;
  /** The authenticated client (API keys configured). */
  caller?: Caller;
  /** `scheme://host[:port]` the client used, for cards that point back at the router. */
  origin?: string;
  signal?: AbortSignal;
}

export interface DispatcherDeps {
  service: TaskService;
  schemas: SchemaRegistry;
  /** v1.0 GetExtendedAgentCard for an agent (undefined = router). */
  extendedCard?: (agentId: string | undefined, origin?: string) => unknown;
  /** Told of failures that are not the client's (mapped to a generic -32603 on the wire). */
  onInternalError?: (err: unknown) => void;
}

export type DispatchResult =
  | { kind: "json"; body: RpcResponse | RpcResponse[] | undefined }
  | { kind: "stream"; messages: MessageStream };

type Operated = { kind: "value"; value: unknown } | { kind: "stream"; messages: MessageStream };

const STREAMING = new Set(["stream", "resubscribe"]);

/**
 * The framework-free JSON-RPC layer: validates envelopes and params, maps a method to its dialect and a
 * task-service operation, and renders results in the request's dialect. Streaming methods answer with an
 * iterator of response messages; only the HTTP adapter frames them as SSE.
 */
export class Dispatcher {
  #deps: DispatcherDeps;

  constructor(deps: DispatcherDeps) {
    this.#deps = deps;
  }

  async dispatch(body: unknown, ctx: CallContext): Promise<DispatchResult> {
    if (Array.isArray(body)) {
      if (body.length === 0) return { kind: "json", body: failure(null, RpcError.invalidRequest("empty batch").toJSON()) };
      const out: RpcResponse[] = [];
      for (const item of body) {
        const r = await this.#single(item, ctx, true);
        if (r.kind === "json" && r.body) out.push(r.body as RpcResponse);
      }
      return { kind: "json", body: out.length ? out : undefined };
    }
    return this.#single(body, ctx, false);
  }

  async #single(req: unknown, ctx: CallContext, inBatch: boolean): Promise<DispatchResult> {
    const id = requestId(req);
    if (!req || typeof req !== "object" || Array.isArray(req)) {
      return json(failure(null, RpcError.invalidRequest("a request must be a JSON object").toJSON()));
    }
    const issue = this.#deps.schemas.check("jsonrpc", req);
    if (issue) return json(failure(id, RpcError.invalidRequest(issue.message, issue.field).toJSON()));
    const { method, params = {} } = req as { method: string; params?: unknown };
    // Object.hasOwn: a request may carry its own "hasOwnProperty" member.
    const isNotification = !Object.hasOwn(req, "id");
    try {
      assertA2AVersion(ctx.a2aVersion);
      const binding = bindMethod(method);
      if (!binding) throw RpcError.methodNotFound(method);
      if (inBatch && STREAMING.has(binding.operation)) {
        throw RpcError.invalidRequest(`${method} streams and cannot be part of a batch`, "method");
      }
      let dialect = binding.dialects[0]!;
      const bad = this.#deps.schemas.check(dialect.paramsSchemaId(method), params);
      if (bad) throw RpcError.invalidParams(bad.message, bad.field);
      // Methods shared by several dialects answer in the dialect the task was created in.
      if (binding.dialects.length > 1) {
        const taskId = dialect.toTaskRef(params).taskId;
        const task = await this.#deps.service.get(taskId, scopeOf(ctx)).catch(() => undefined);
        if (task) dialect = binding.dialects.find((d) => d.name === task.dialect) ?? dialectByName(task.dialect);
      }
      const result = await this.#operate(binding.operation, dialect, method, params, id, ctx);
      if (result.kind === "stream") return result;
      return json(isNotification ? undefined : success(id, result.value));
    } catch (err) {
      const e = toRpcError(err);
      if (!(err instanceof RpcError) && !(err instanceof TaskError)) this.#deps.onInternalError?.(err);
      return json(isNotification ? undefined : failure(id, e.toJSON()));
    }
  }

  async #operate(operation: string, dialect: Dialect, method: string, params: unknown, id: RpcId, ctx: CallContext): Promise<Operated> {
    const { service } = this.#deps;
    const scope = scopeOf(ctx);
    switch (operation) {
      case "send": {
        const req = dialect.toSendRequest(params);
        if (dialect.returnsImmediately?.(params)) {
          const { task } = await service.start(req, dialect.name, scope);
          return value(dialect.renderSendResult(task, req.historyLength));
        }
        return value(dialect.renderSendResult(await service.send(req, dialect.name, scope), req.historyLength));
      }
      case "stream": {
        const req = dialect.toSendRequest(params);
        const { task, events } = await service.stream(req, dialect.name, scope, ctx.signal);
        const opening = dialect.streamStartsWithTask ? [valueMessage(id, streamStart(dialect, task))] : [];
        return stream(dialect, id, opening, events);
      }
      case "resubscribe":
        return this.#resubscribe(dialect, params, id, ctx);
      case "get": {
        const ref = dialect.toTaskRef(params);
        return value(dialect.renderTask(await service.get(ref.taskId, scope), ref.historyLength));
      }
      case "cancel": {
        const ref = dialect.toTaskRef(params);
        return value(dialect.renderTask(await service.cancel(ref.taskId, scope)));
      }
      case "push-set": {
        const ref = dialect.toPushRef(params, operation);
        return value(dialect.renderPushConfig(ref.taskId, await service.setPushConfig(ref.taskId, ref.config!, dialect.name, scope)));
      }
      case "push-get": {
        const ref = dialect.toPushRef(params, operation);
        return value(dialect.renderPushConfig(ref.taskId, await service.getPushConfig(ref.taskId, ref.configId, scope)));
      }
      case "push-list": {
        const ref = dialect.toPushRef(params, operation);
        const configs = await service.listPushConfigs(ref.taskId, scope);
        return value(
          dialect.renderPushConfigList ? dialect.renderPushConfigList(ref.taskId, configs) : configs.map((c) => dialect.renderPushConfig(ref.taskId, c)),
        );
      }
      case "push-delete": {
        const ref = dialect.toPushRef(params, operation);
        await service.deletePushConfig(ref.taskId, ref.configId, scope);
        return value(dialect.renderPushDeleted ? dialect.renderPushDeleted() : null);
      }
      case "list": {
        if (!dialect.toListQuery || !dialect.renderList) throw RpcError.unsupportedOperation(method);
        const q = dialect.toListQuery(params);
        const page = await service.list(q, scope);
        const options = { includeArtifacts: q.includeArtifacts, totalSize: page.totalSize };
        return value(dialect.renderList(page.tasks, page.nextPageToken, page.pageSize, q.historyLength, options));
      }
      case "extended-card": {
        if (!this.#deps.extendedCard) throw RpcError.extendedCardNotConfigured();
        return value(this.#deps.extendedCard(ctx.pathAgentId, ctx.origin));
      }
      default:
        throw RpcError.methodNotFound(method);
    }
  }

  async #resubscribe(dialect: Dialect, params: unknown, id: RpcId, ctx: CallContext): Promise<Operated> {
    const ref = dialect.toTaskRef(params);
    const scope = scopeOf(ctx);
    const last = parseLastEventId(ctx.lastEventId);
    if (last instanceof Error) throw RpcError.invalidParams(last.message, "Last-Event-ID");
    const { service } = this.#deps;
    if (last !== undefined) {
      const { events } = await service.resubscribe(ref.taskId, scope, { afterSeq: last, signal: ctx.signal });
      return stream(dialect, id, [], events);
    }
    // Its events are read only once iterated: a refused resubscription leaves nothing behind.
    const { task, events, lastStatusMetadata } = await service.resubscribe(ref.taskId, scope, { signal: ctx.signal });
    // v1.0: any task that is not terminal may be subscribed to (one waiting for input gets its Task).
    if (dialect.finishedResubscribe === "unsupported" && isTerminal(task.status.state)) {
      events?.close();
      throw RpcError.unsupportedOperation(`task ${task.id} is already ${task.status.state}`, { taskId: task.id, state: task.status.state });
    }
    if (dialect.streamStartsWithTask) {
      return stream(dialect, id, [valueMessage(id, streamStart(dialect, task))], events);
    }
    const turnOver = TURN_END_STATES.has(task.status.state);
    const base = { taskId: task.id, contextId: task.contextId, seq: undefined };
    // The closing status of a finished turn carries what its logged final event carried (cost, history).
    const status: OutboundEvent = { ...base, kind: "status", status: task.status, final: turnOver, ...(lastStatusMetadata && { metadata: lastStatusMetadata }) };
    const artifacts: OutboundEvent[] = task.artifacts.map((artifact) => ({ ...base, kind: "artifact", artifact }));
    const snapshot = turnOver ? [...artifacts, status] : [status, ...artifacts];
    return stream(dialect, id, snapshot.map((e) => eventMessage(dialect, id, e)), turnOver ? undefined : events);
  }
}

function scopeOf(ctx: CallContext): Scope {
  return { ...(ctx.caller && { caller: ctx.caller }), ...(ctx.pathAgentId !== undefined && { agentId: ctx.pathAgentId }) };
}

/** The opening `result` of a stream that starts with the Task (v1.0: `{task}`). */
function streamStart(dialect: Dialect, task: Task): unknown {
  return dialect.renderStreamStart ? dialect.renderStreamStart(task) : dialect.renderTask(task);
}

/** A stream of `opening` (rendered now), then the logged events (absent: nothing live follows). */
function stream(dialect: Dialect, id: RpcId, opening: StreamMessage[], events: EventStream | undefined): Operated {
  return { kind: "stream", messages: new MessageStream(dialect, id, opening, events) };
}

function value(v: unknown): Operated {
  return { kind: "value", value: v };
}

function json(body: RpcResponse | undefined): DispatchResult {
  return { kind: "json", body };
}

function requestId(req: unknown): RpcId {
  if (req && typeof req === "object" && "id" in req) {
    const id = (req as { id: unknown }).id;
    if (typeof id === "string" || typeof id === "number" || id === null) return id;
  }
  return null;
}
