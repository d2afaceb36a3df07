import type { AgentConnector } from "../core/agent.js";
import type { TaskEngine } from "../core/engine.js";
import { isTerminal, TURN_END_STATES, type LoggedEvent, type Task } from "../core/model.js";
import type { AgentRegistry } from "../agents/registry.js";
import { assertA2AVersion } from "../dialects/a2a-version.js";
import { bindMethod, dialectByName, type Dialect } from "../dialects/index.js";
import type { OutboundEvent } from "../dialects/dialect.js";
import type { SchemaRegistry } from "../schema/validator.js";
import { parseLastEventId } from "../sse/format.js";
import { failure, success, type RpcId, type RpcResponse } from "./envelope.js";
import { RpcError, toRpcError } from "./errors.js";
import { decodePageToken, encodePageToken } from "./page-token.js";
import { eventFrame, eventFrames, valueFrame, type FrameChunk } from "./stream-render.js";

/** Per-call facts from the transport. */
export interface CallContext {
  /** `A2A-Version` request header. */
  a2aVersion?: string;
  /** `Last-Event-ID` request header. */
  lastEventId?: string;
  /** Agent fixed by the path (`POST /agents/{agentId}`). */
  pathAgentId?: string;
  /** `scheme://host[:port]` the client used, for cards that point back at the router. */
  origin?: string;
  signal?: AbortSignal;
}

/** Optional services a dialect method may need; absent ones answer "not supported". */
export interface PushService {
  /** `afterSeq`: also deliver the task's logged events after it (a config given with the message gets the whole turn). */
  set(taskId: string, config: import("../core/model.js").PushNotificationConfig, afterSeq?: number): Promise<import("../core/model.js").PushNotificationConfig>;
  list(taskId: string): Promise<import("../core/model.js").PushNotificationConfig[]>;
  delete(taskId: string, configId: string): Promise<void>;
}

export interface DispatcherDeps {
  engine: TaskEngine;
  agents: AgentRegistry;
  schemas: SchemaRegistry;
  defaultAgent: string;
  push?: PushService;
  /** v1.0 GetExtendedAgentCard for an agent (undefined = router). */
  extendedCard?: (agentId: string | undefined, origin?: string) => unknown;
}

export type DispatchResult =
  | { kind: "json"; body: RpcResponse | RpcResponse[] | undefined }
  | { kind: "stream"; frames: AsyncIterable<FrameChunk> };

const STREAMING = new Set(["stream", "resubscribe"]);

/**
 * The framework-free JSON-RPC layer: validates envelopes and params, maps a method to its dialect and
 * operation, drives the engine, and writes results in the request's dialect.
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
    const isNotification = !(req as object).hasOwnProperty("id");
    try {
      assertA2AVersion(ctx.a2aVersion);
      const binding = bindMethod(method);
      if (!binding) throw RpcError.methodNotFound(method);
      if (inBatch && STREAMING.has(binding.operation)) {
        throw RpcError.invalidRequest(`${method} streams and cannot be part of a batch`, "method");
      }
      let dialect = binding.dialects[0]!;
      const check = (d: Dialect) => {
        const bad = this.#deps.schemas.check(d.paramsSchemaId(method), params);
        if (bad) throw RpcError.invalidParams(bad.message, bad.field);
      };
      check(dialect);
      // Methods shared by several dialects answer in the dialect the task was created in.
      if (binding.dialects.length > 1) {
        const taskId = dialect.toTaskRef(params).taskId;
        const task = await this.#deps.engine.getTask(taskId);
        if (task) dialect = binding.dialects.find((d) => d.name === task.dialect) ?? dialectByName(task.dialect);
      }
      const result = await this.#operate(binding.operation, dialect, method, params, id, ctx);
      if (result.kind === "stream") return result;
      return json(isNotification ? undefined : success(id, result.value));
    } catch (err) {
      const e = toRpcError(err);
      return json(isNotification ? undefined : failure(id, e.toJSON()));
    }
  }

  async #operate(
    operation: string,
    dialect: Dialect,
    method: string,
    params: unknown,
    id: RpcId,
    ctx: CallContext,
  ): Promise<{ kind: "value"; value: unknown } | { kind: "stream"; frames: AsyncIterable<FrameChunk> }> {
    const { engine } = this.#deps;
    switch (operation) {
      case "send": {
        const { req, task, fromSeq } = await this.#beginTurn(dialect, params, ctx);
        if (dialect.returnsImmediately?.(params)) return { kind: "value", value: dialect.renderSendResult(task, req.historyLength) };
        const done = (await engine.turnResult(task.id, fromSeq))!;
        return { kind: "value", value: dialect.renderSendResult(done, req.historyLength) };
      }
      case "stream": {
        const { task, fromSeq } = await this.#beginTurn(dialect, params, ctx);
        const prelude = dialect.streamStartsWithTask ? [valueFrame(id, streamStart(dialect, task))] : [];
        return { kind: "stream", frames: this.#frames(dialect, id, prelude, [], task.id, fromSeq, ctx.signal) };
      }
      case "resubscribe":
        return this.#resubscribe(dialect, params, id, ctx);
      case "get": {
        const ref = dialect.toTaskRef(params);
        const task = await this.#task(ref.taskId, ctx);
        return { kind: "value", value: dialect.renderTask(task, ref.historyLength) };
      }
      case "cancel": {
        const ref = dialect.toTaskRef(params);
        await this.#task(ref.taskId, ctx);
        const task = await engine.cancel(ref.taskId);
        return { kind: "value", value: dialect.renderTask(task) };
      }
      case "push-set": {
        const ref = dialect.toPushRef(params);
        await this.#task(ref.taskId, ctx);
        const saved = await this.#push().set(ref.taskId, ref.config!);
        return { kind: "value", value: dialect.renderPushConfig(ref.taskId, saved) };
      }
      case "push-get": {
        const ref = dialect.toPushRef(params);
        await this.#task(ref.taskId, ctx);
        const configs = await this.#push().list(ref.taskId);
        const config = ref.configId ? configs.find((c) => c.id === ref.configId) : configs[0];
        if (!config) throw RpcError.invalidParams(`no push notification config for task ${ref.taskId}`, "id");
        return { kind: "value", value: dialect.renderPushConfig(ref.taskId, config) };
      }
      case "push-list": {
        const ref = dialect.toPushRef(params);
        await this.#task(ref.taskId, ctx);
        const configs = await this.#push().list(ref.taskId);
        return {
          kind: "value",
          value: dialect.renderPushConfigList
            ? dialect.renderPushConfigList(ref.taskId, configs)
            : configs.map((c) => dialect.renderPushConfig(ref.taskId, c)),
        };
      }
      case "push-delete": {
        const ref = dialect.toPushRef(params);
        await this.#task(ref.taskId, ctx);
        await this.#push().delete(ref.taskId, ref.configId ?? "default");
        return { kind: "value", value: dialect.renderPushDeleted ? dialect.renderPushDeleted() : null };
      }
      case "list": {
        if (!dialect.toListQuery || !dialect.renderList) throw RpcError.unsupportedOperation(method);
        const q = dialect.toListQuery(params);
        const pageSize = Math.min(Math.max(q.pageSize ?? 50, 1), 100);
        const filter = { contextId: q.contextId, state: q.state, agentId: ctx.pathAgentId, statusSinceMs: statusSince(q.statusTimestampAfter) };
        const before = q.pageToken ? decodePageToken(q.pageToken) : undefined;
        // One task more than the page tells whether another page follows.
        const [tasks, totalSize] = await Promise.all([
          engine.store.listTasks({ ...filter, before, limit: pageSize + 1 }),
          engine.store.countTasks(filter),
        ]);
        const page = tasks.slice(0, pageSize);
        const next = tasks.length > pageSize ? encodePageToken(page[page.length - 1]!) : "";
        const options = { includeArtifacts: q.includeArtifacts, totalSize };
        return { kind: "value", value: dialect.renderList(page, next, pageSize, q.historyLength, options) };
      }
      case "extended-card": {
        if (!this.#deps.extendedCard) throw RpcError.extendedCardNotConfigured();
        return { kind: "value", value: this.#deps.extendedCard(ctx.pathAgentId, ctx.origin) };
      }
      default:
        throw RpcError.methodNotFound(method);
    }
  }

  async #resubscribe(dialect: Dialect, params: unknown, id: RpcId, ctx: CallContext) {
    const ref = dialect.toTaskRef(params);
    const task = await this.#task(ref.taskId, ctx);
    const last = parseLastEventId(ctx.lastEventId);
    if (last instanceof Error) throw RpcError.invalidParams(last.message, "Last-Event-ID");
    if (last !== undefined) {
      if (last > task.lastSeq) throw RpcError.invalidParams(`Last-Event-ID ${last} is beyond the task's last event ${task.lastSeq}`, "Last-Event-ID");
      return { kind: "stream" as const, frames: this.#frames(dialect, id, [], [], task.id, last, ctx.signal) };
    }
    const turnOver = TURN_END_STATES.has(task.status.state);
    // v1.0: any task that is not terminal may be subscribed to (one waiting for input gets its Task).
    if (dialect.finishedResubscribe === "unsupported" && isTerminal(task.status.state)) {
      throw RpcError.unsupportedOperation(`task ${task.id} is already ${task.status.state}`, { taskId: task.id, state: task.status.state });
    }
    if (dialect.streamStartsWithTask) {
      return { kind: "stream" as const, frames: this.#frames(dialect, id, [valueFrame(id, streamStart(dialect, task))], [], task.id, task.lastSeq, ctx.signal) };
    }
    const base = { taskId: task.id, contextId: task.contextId, seq: undefined };
    const status: OutboundEvent = { ...base, kind: "status", status: task.status, final: turnOver };
    if (turnOver) {
      // The closing status of a finished turn carries what its logged final event carried (cost, history).
      const [last] = await this.#deps.engine.store.readEvents(task.id, task.lastSeq - 1, 1);
      if (last?.kind === "status" && last.metadata) status.metadata = last.metadata;
    }
    const artifacts: OutboundEvent[] = task.artifacts.map((artifact) => ({ ...base, kind: "artifact", artifact }));
    const snapshot = turnOver ? [...artifacts, status] : [status, ...artifacts];
    if (turnOver) return { kind: "stream" as const, frames: this.#frames(dialect, id, [], snapshot, task.id, null, ctx.signal) };
    return { kind: "stream" as const, frames: this.#frames(dialect, id, [], snapshot, task.id, task.lastSeq, ctx.signal) };
  }

  /** Opening frames, synthetic snapshot events, then the log from `afterSeq` (null: nothing live). */
  async *#frames(
    dialect: Dialect,
    id: RpcId,
    opening: string[],
    snapshot: OutboundEvent[],
    taskId: string,
    afterSeq: number | null,
    signal?: AbortSignal,
  ): AsyncGenerator<FrameChunk> {
    // One combined write for the opening, and nothing of it kept afterwards: a stream lives long (idle
    // streams are mostly what they keep), and the snapshot's events and frames are needed only once.
    let first = opening.join("");
    for (const e of snapshot) first += eventFrame(dialect, id, e);
    opening = snapshot = [];
    if (first) yield first;
    first = "";
    if (afterSeq === null) return;
    // The engine decides where a stream ends (after a turn's last event that nothing follows). A batch (a
    // log page, or what arrived since the stream last took) becomes one string: one socket write for it.
    for await (const batch of this.#deps.engine.eventBatches(taskId, afterSeq, signal)) yield eventFrames(dialect, id, batch);
  }

  #pickAgent(pathAgentId: string | undefined, metadata: Record<string, unknown>): AgentConnector {
    const wanted = pathAgentId ?? (typeof metadata.agent === "string" ? metadata.agent : undefined) ?? this.#deps.defaultAgent;
    const agent = this.#deps.agents.find(wanted);
    if (!agent) throw RpcError.unknownAgent(wanted);
    if (!agent.isOnline()) throw RpcError.agentUnavailable(agent.info.id);
    return agent;
  }

  /** What send and stream share: read the request, pick the agent, start the turn, register its webhook. */
  async #beginTurn(dialect: Dialect, params: unknown, ctx: CallContext) {
    const req = dialect.toSendRequest(params);
    await this.#checkTaskRef(dialect, req.taskId);
    const agent = this.#pickAgent(ctx.pathAgentId, req.metadata);
    const { task, fromSeq } = await this.#deps.engine.startTurn(req, dialect.name, agent);
    if (req.pushNotification) await this.#push().set(task.id, req.pushNotification, fromSeq);
    return { req, task, fromSeq };
  }

  /** v0.3/v1.0 clients may only name tasks that exist (the router makes their ids; v1.0 spec 3.4.2). */
  async #checkTaskRef(dialect: Dialect, taskId: string | undefined): Promise<void> {
    if (taskId !== undefined && dialect.clientNamesTasks === false && !(await this.#deps.engine.getTask(taskId))) {
      throw RpcError.taskNotFound(taskId);
    }
  }

  /** The task, as seen from the endpoint: `/agents/{id}` only sees that agent's tasks. */
  async #task(taskId: string, ctx: CallContext): Promise<Task> {
    const task = await this.#deps.engine.getTask(taskId);
    if (!task) throw RpcError.taskNotFound(taskId);
    if (ctx.pathAgentId !== undefined && this.#deps.agents.find(ctx.pathAgentId)?.info.id !== task.agentId) {
      throw RpcError.taskNotFound(taskId);
    }
    return task;
  }

  #push(): PushService {
    if (!this.#deps.push) throw RpcError.pushNotSupported();
    return this.#deps.push;
  }
}

/** The opening `result` of a stream that starts with the Task (v1.0: `{task}`). */
function streamStart(dialect: Dialect, task: Task): unknown {
  return dialect.renderStreamStart ? dialect.renderStreamStart(task) : dialect.renderTask(task);
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

/** v1.0 ListTasks `statusTimestampAfter` as epoch ms (the schema checked its form; this catches what it lets by). */
function statusSince(iso: string | undefined): number | undefined {
  if (iso === undefined) return undefined;
  const ms = Date.parse(iso);
  if (Number.isNaN(ms)) throw RpcError.invalidParams(`statusTimestampAfter is not a time: "${iso}"`, "statusTimestampAfter");
  return ms;
}
