import { randomUUID } from "node:crypto";
import type { UpstreamCall } from "../dialects/index.js";
import { exceedsDepth, MAX_JSON_DEPTH } from "../schema/depth.js";

/**
 * What a call looks like on the wire in its binding, and how its answers are unwrapped: JSON-RPC wraps
 * both ways in an envelope (`{jsonrpc, id, method, params}`, `{result}` | `{error}`); the HTTP+JSON binding
 * sends the params object to a path of its own and answers bare, with errors as google.rpc.Status
 * (`{error: {code, status, message, details}}`). Pure functions: the transport does the I/O.
 */

/** The longest upstream error message quoted in a failure message. */
export const MAX_REASON_CHARS = 200;

/** Where the call goes: the endpoint itself (JSON-RPC), or the operation's path under it (HTTP+JSON). */
export function callUrl(endpoint: string, call: UpstreamCall): string {
  return call.path === undefined ? endpoint : endpoint.replace(/\/+$/, "") + call.path;
}

/** The request body in the call's binding. */
export function callBody(call: UpstreamCall): string {
  if (call.path !== undefined) return JSON.stringify(call.params);
  return JSON.stringify({ jsonrpc: "2.0", id: randomUUID(), method: call.method, params: call.params });
}

/**
 * The content type of a call's body: HTTP+JSON asks for `application/a2a+json` (spec 11.1, which
 * @a2a-js/sdk's REST server accepts beside application/json); JSON-RPC servers expect plain JSON.
 */
export function callContentType(call: UpstreamCall): string {
  return call.path === undefined ? "application/json" : "application/a2a+json";
}

/** One answer of `call` (a response body, or one SSE event's data) as its result; an error answer throws. */
export function callResult(payload: unknown, agentId: string, call: UpstreamCall, where = call.method): unknown {
  return call.path === undefined ? rpcResult(payload, agentId, where) : bareResult(payload, agentId, where);
}

/** A JSON-RPC response's result; an error response, or one without a result, throws. */
export function rpcResult(payload: unknown, agentId: string, method: string): unknown {
  if (exceedsDepth(payload)) throw new Error(`Upstream agent ${agentId} sent JSON nested deeper than ${MAX_JSON_DEPTH} levels on ${method}`);
  const p = payload as { result?: unknown; error?: { code?: number; message?: string } };
  if (p?.error) throw answeredError(agentId, method, p.error);
  if (!p || typeof p !== "object" || !("result" in p)) throw new Error(`Upstream agent ${agentId} sent a response without result on ${method}`);
  return p.result;
}

/**
 * An HTTP+JSON answer: the object itself. A google.rpc.Status in its place (how @a2a-js/sdk reports an
 * error that happens mid-stream, as an `event: error`) throws with its code and message.
 */
function bareResult(payload: unknown, agentId: string, operation: string): unknown {
  if (exceedsDepth(payload)) throw new Error(`Upstream agent ${agentId} sent JSON nested deeper than ${MAX_JSON_DEPTH} levels on ${operation}`);
  if (!payload || typeof payload !== "object" || Array.isArray(payload)) throw new Error(`Upstream agent ${agentId} sent a result that is not a JSON object on ${operation}`);
  const error = (payload as { error?: unknown }).error;
  if (error && typeof error === "object") throw answeredError(agentId, operation, error as { code?: unknown; message?: unknown });
  return payload;
}

/** An error an agent answered with (JSON-RPC error object or google.rpc.Status), said briefly. */
function answeredError(agentId: string, operation: string, error: { code?: unknown; message?: unknown }): Error {
  const code = typeof error.code === "number" ? ` ${error.code}` : "";
  const message = typeof error.message === "string" && error.message !== "" ? error.message.slice(0, MAX_REASON_CHARS) : "unknown error";
  return new Error(`Upstream agent ${agentId} error${code} on ${operation}: ${message}`);
}
