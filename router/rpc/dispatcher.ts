import { TaskError } from "../core/errors.js";
import { assertA2AVersion, bindMethod, type Dialect } from "../dialects/index.js";
import { isStreaming, MessageStream, type A2ARequestHandler } from "../handler/index.js";
import type { SchemaRegistry } from "../schema/validator.js";
import { requestDigest } from "../service/idempotency.js";
import type { Caller } from "../service/scope.js";
import { failure, success, type RpcId, type RpcResponse } from "../jsonrpc/envelope.js";
import { errorDialect, RpcError, rpcErrorBody } from "./errors.js";
import { jsonRpcFrame } from "./stream-render.js";

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
  /** `Idempotency-Key` request header: a send repeated with it gets the turn the first started (CONTRACT 14). */
  idempotencyKey?: string;
  signal?: AbortSignal;
}

export interface DispatcherDeps {
  /** The A2A request handler every binding calls. */
  handler: A2ARequestHandler;
  /** Checks the JSON-RPC envelope (the handler checks the params). */
  schemas: SchemaRegistry;
  /** Told of failures that are not the client's (mapped to a generic -32603 on the wire). */
  onInternalError?: (err: unknown) => void;
}

export type DispatchResult = { kind: "json"; body: RpcResponse | RpcResponse[] | undefined } | { kind: "stream"; messages: MessageStream };

/**
 * The JSON-RPC binding, free of HTTP: validates envelopes, maps a method to its dialect(s) and A2A operation,
 * and hands it to the request handler; wraps values in responses and frames streamed results as response
 * messages with the request's id. Only the HTTP adapter writes them as SSE.
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
      for (const [i, item] of body.entries()) {
        // One key for a batch: each request of it is the key's own, by its place in the batch.
        const r = await this.#single(item, ctx.idempotencyKey === undefined ? ctx : { ...ctx, idempotencyKey: `${ctx.idempotencyKey}#${i}` }, true);
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
    if (issue)
      return json(
        failure(id, rpcErrorBody(RpcError.invalidRequest(issue.message, issue.field), errorDialect((req as { method?: unknown }).method, ctx.a2aVersion))),
      );
    const { method, params = {} } = req as { method: string; params?: unknown };
    // Object.hasOwn: a request may carry its own "hasOwnProperty" member.
    const isNotification = !Object.hasOwn(req, "id");
    // Set once the method is known to stream in a dialect whose failures are then an SSE event.
    let failAsEvent: Dialect | undefined;
    try {
      assertA2AVersion(ctx.a2aVersion);
      const binding = bindMethod(method);
      if (!binding) throw TaskError.methodNotFound(method);
      if (inBatch && isStreaming(binding.operation)) {
        throw RpcError.invalidRequest(`${method} streams and cannot be part of a batch`, "method");
      }
      const first = binding.dialects[0]!;
      if (!inBatch && isStreaming(binding.operation) && (first.streamFailure ?? "event") === "event") failAsEvent = first;
      const result = await this.#deps.handler.handle(binding.dialects, binding.operation, params, {
        ...(ctx.caller && { caller: ctx.caller }),
        ...(ctx.pathAgentId !== undefined && { agentId: ctx.pathAgentId }),
        ...(ctx.lastEventId !== undefined && { lastEventId: ctx.lastEventId }),
        ...(ctx.origin !== undefined && { origin: ctx.origin }),
        ...(ctx.signal && { signal: ctx.signal }),
        ...(ctx.idempotencyKey !== undefined && { once: { idempotencyKey: ctx.idempotencyKey, requestDigest: withoutId(req) } }),
      });
      if (result.kind === "stream") return { kind: "stream", messages: new MessageStream(result.reply, jsonRpcFrame(id)) };
      return json(isNotification ? undefined : success(id, result.value));
    } catch (err) {
      if (!(err instanceof RpcError) && !(err instanceof TaskError)) this.#deps.onInternalError?.(err);
      if (isNotification) return json(undefined);
      const body = rpcErrorBody(err, errorDialect(method, ctx.a2aVersion));
      if (failAsEvent) return { kind: "stream", messages: errorStream(failAsEvent, failure(id, body)) };
      return json(failure(id, body));
    }
  }
}

function json(body: RpcResponse | undefined): DispatchResult {
  return { kind: "json", body };
}

/** The digest of a request as its Idempotency-Key is compared with it: all but its `id` (a client's retry may renumber it). */
function withoutId(req: object): string {
  const { id: _id, ...rest } = req as Record<string, unknown>;
  return requestDigest(rest);
}

function requestId(req: unknown): RpcId {
  if (req && typeof req === "object" && "id" in req) {
    const id = (req as { id: unknown }).id;
    if (typeof id === "string" || typeof id === "number" || id === null) return id;
  }
  return null;
}

/**
 * A streaming method of v0.1/v0.3 that fails before its stream opens: its response is still an event stream
 * (v0.3 spec 3.3.1, 7), whose one event is the JSON-RPC error response.
 */
function errorStream(dialect: Dialect, response: RpcResponse): MessageStream {
  const data = JSON.stringify(response);
  return new MessageStream({ dialect, opening: [{ value: null }] }, () => data);
}
