import { STATUS_CODES } from "node:http";
import {
  AnswerError,
  callResult as bindingResult,
  type ClientCall,
  errorDetail,
  MAX_REASON_CHARS,
  readEvents,
  sendCall,
  TransportError,
} from "../client/index.js";
import { MAX_JSON_DEPTH } from "../schema/depth.js";
import { MAX_ANSWER_BYTES } from "./limits.js";

/**
 * The router's side of the one client transport (router/client) when it talks to an upstream A2A agent:
 * every failure said in the agent's terms. The messages end up as a failed task's status text, which
 * clients read: they name the agent and what happened, never an upstream's error page or a JavaScript
 * error's text.
 */

/** A failure of the upstream's connection (refused, reset, cut) rather than of what it answered. */
export class UpstreamUnreachable extends Error {
  override name = "UpstreamUnreachable";
}

/** POSTs one call; an HTTP error or a failed connection throws with a message fit for a client. */
export async function postCall(
  agentId: string,
  endpoint: string,
  call: ClientCall,
  options: { signal: AbortSignal; stream: boolean; headers?: Record<string, string> },
): Promise<Response> {
  let res: Response;
  try {
    res = await sendCall(endpoint, call, options);
  } catch (err) {
    if (!(err instanceof TransportError)) throw err;
    const why = err.connection.code ?? err.connection.message ?? "connection failed";
    // A reset or closed socket happened after connecting; anything else never reached the agent.
    if (err.fault === "cut") throw new Error(`Upstream agent ${agentId} closed the connection before answering (${why})`);
    throw new UpstreamUnreachable(`Upstream agent ${agentId} is unreachable (${why})`);
  }
  if (!res.ok) {
    const detail = await errorDetail(res);
    throw new Error(
      `Upstream agent ${agentId} answered HTTP ${res.status} ${res.statusText || STATUS_CODES[res.status] || "error"}${detail ? `: ${detail}` : ""}`,
    );
  }
  return res;
}

/** One answer of `call` (a response body, or one SSE event's data) as its result; an error answer throws. */
export function callResult(payload: unknown, agentId: string, call: ClientCall, where = call.method): unknown {
  try {
    return bindingResult(payload, call);
  } catch (err) {
    if (!(err instanceof AnswerError)) throw err;
    throw new Error(`Upstream agent ${agentId} ${answerFault(err, where)}`);
  }
}

function answerFault(err: AnswerError, where: string): string {
  switch (err.fault) {
    case "error": {
      const code = err.error?.code !== undefined ? ` ${err.error.code}` : "";
      const message = err.error?.message ? err.error.message.slice(0, MAX_REASON_CHARS) : "unknown error";
      return `error${code} on ${where}: ${message}`;
    }
    case "no-result":
      return `sent a response without result on ${where}`;
    case "not-object":
      return `sent a result that is not a JSON object on ${where}`;
    case "too-deep":
      return `sent JSON nested deeper than ${MAX_JSON_DEPTH} levels on ${where}`;
  }
}

/**
 * The results of an upstream SSE response to `call`, one per event, unwrapped in the call's binding (an
 * error event throws). A stream that sends nothing (no event, no comment) for `idleMs` is given up with an
 * error that says so, as is one event of more than `maxEventBytes`; an early return (the turn ended or was
 * canceled) closes the connection.
 */
export async function* sseResults(res: Response, agentId: string, idleMs: number, call: ClientCall, maxEventBytes = MAX_ANSWER_BYTES): AsyncGenerator<unknown> {
  const events = readEvents(res, { idleMs, maxEventBytes });
  try {
    for (;;) {
      let next: IteratorResult<{ data: unknown }>;
      try {
        next = await events.next();
      } catch (err) {
        if (!(err instanceof TransportError)) throw err;
        throw new Error(`Upstream agent ${agentId} ${streamFault(err, idleMs, maxEventBytes)}`);
      }
      if (next.done) return;
      yield callResult(next.value.data, agentId, call, "stream");
    }
  } finally {
    // An early return (the turn ended or was canceled) or an error answer ends the read: the connection closes.
    await events.return(undefined);
  }
}

function streamFault(err: TransportError, idleMs: number, maxEventBytes: number): string {
  switch (err.fault) {
    case "empty":
      return "sent an empty stream";
    case "too-large":
      return `sent an event of more than ${maxEventBytes} characters; its stream was given up`;
    case "idle":
      return `sent nothing for ${idleMs} ms; its stream was given up`;
    case "not-json":
      return "sent an event that is not JSON";
    default:
      // fetch reports a cut connection as "terminated": say what happened, in the agent's terms.
      return `closed its stream before a final status (${err.connection.code ?? "connection closed"})`;
  }
}
