import { randomUUID } from "node:crypto";
import { exceedsDepth, MAX_JSON_DEPTH } from "../schema/depth.js";
import type { ClientCall } from "./call.js";

/**
 * What a call looks like on the wire in its binding, and how its answers are unwrapped: JSON-RPC wraps
 * both ways in an envelope (`{jsonrpc, id, method, params}`, `{result}` | `{error}`); the HTTP+JSON binding
 * sends the params object to a path of its own and answers bare, with errors as google.rpc.Status
 * (`{error: {code, status, message, details}}`). Pure functions: the transport does the I/O.
 */

/** Why an answer holds no result; each reader (the upstream connector, the CLI) words it in its own terms. */
export type AnswerFault =
  /** The server answered with an error (a JSON-RPC error object, or a google.rpc.Status). */
  | "error"
  /** A JSON-RPC response with neither result nor error. */
  | "no-result"
  /** An HTTP+JSON answer that is not a JSON object. */
  | "not-object"
  /** JSON nested deeper than MAX_JSON_DEPTH. */
  | "too-deep";

/** An answer that holds no result: `error` carries what the server said when it answered with an error. */
export class AnswerError extends Error {
  override name = "AnswerError";
  constructor(
    readonly fault: AnswerFault,
    readonly error?: { code?: number; message?: string; data?: unknown },
  ) {
    super(fault === "error" ? `error ${error?.code ?? ""}: ${error?.message ?? ""}` : fault);
  }
}

/** The JSON nesting past which an answer is refused (the router's own bound on every input). */
export { MAX_JSON_DEPTH };

/** Where the call goes: the endpoint itself (JSON-RPC), or the operation's path under it (HTTP+JSON). */
export function callUrl(endpoint: string, call: ClientCall): string {
  return call.path === undefined ? endpoint : endpoint.replace(/\/+$/, "") + call.path;
}

/** The HTTP method of a call: JSON-RPC always POSTs. */
export function callVerb(call: ClientCall): "GET" | "POST" | "DELETE" {
  return call.path === undefined ? "POST" : (call.verb ?? "POST");
}

/** The request body in the call's binding; none for an HTTP+JSON GET or DELETE. */
export function callBody(call: ClientCall, id: string | number = randomUUID()): string | undefined {
  if (call.path !== undefined) return callVerb(call) === "POST" ? JSON.stringify(call.params ?? {}) : undefined;
  return JSON.stringify({ jsonrpc: "2.0", id, method: call.method, params: call.params });
}

/**
 * The content type of a call's body: HTTP+JSON asks for `application/a2a+json` (spec 11.1, which
 * @a2a-js/sdk's REST server accepts beside application/json); JSON-RPC servers expect plain JSON.
 */
export function callContentType(call: ClientCall): string {
  return call.path === undefined ? "application/json" : "application/a2a+json";
}

/** One answer of `call` (a response body, or one SSE event's data) as its result; else an AnswerError. */
export function callResult(payload: unknown, call: ClientCall): unknown {
  if (exceedsDepth(payload)) throw new AnswerError("too-deep");
  return call.path === undefined ? rpcResult(payload) : bareResult(payload);
}

/** A JSON-RPC response's result; an error response, or one without a result, throws. */
function rpcResult(payload: unknown): unknown {
  const p = payload as { result?: unknown; error?: { code?: unknown; message?: unknown; data?: unknown } };
  if (p?.error) throw answered(p.error);
  if (!p || typeof p !== "object" || !("result" in p)) throw new AnswerError("no-result");
  return p.result;
}

/**
 * An HTTP+JSON answer: the object itself. A google.rpc.Status in its place (how @a2a-js/sdk reports an
 * error that happens mid-stream, as an `event: error`) throws with its code and message.
 */
function bareResult(payload: unknown): unknown {
  if (!payload || typeof payload !== "object" || Array.isArray(payload)) throw new AnswerError("not-object");
  const error = (payload as { error?: unknown }).error;
  if (error && typeof error === "object") throw answered(error as { code?: unknown; message?: unknown; details?: unknown });
  return payload;
}

function answered(error: { code?: unknown; message?: unknown; data?: unknown; details?: unknown }): AnswerError {
  return new AnswerError("error", {
    ...(typeof error.code === "number" && { code: error.code }),
    ...(typeof error.message === "string" && { message: error.message }),
    ...(error.data !== undefined && { data: error.data }),
  });
}
