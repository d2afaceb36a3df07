import { STATUS_CODES } from "node:http";
import { EventSourceParserStream, ParseError } from "eventsource-parser/stream";
import type { UpstreamCall } from "../dialects/index.js";
import { boundedText, MAX_ANSWER_BYTES } from "./bounded-read.js";
import { callBody, callContentType, callResult, callUrl, MAX_REASON_CHARS } from "./envelope.js";

export { rpcResult, callResult } from "./envelope.js";

/**
 * The HTTP and SSE side of talking to an upstream A2A agent, whatever its dialect and binding (JSON-RPC
 * or HTTP+JSON, envelope.ts): one POST, its result or its SSE results, and every failure said in the
 * agent's terms. The messages end up as a failed task's status text, which clients read: they name the
 * agent and what happened, never an upstream's error page or a JavaScript error's text.
 */

/** A failure of the upstream's connection (refused, reset, cut) rather than of what it answered. */
export class UpstreamUnreachable extends Error {
  override name = "UpstreamUnreachable";
}

/** undici's errors for a connection that closed under a request: it had reached the agent. */
const CUT_CODES = /^(ECONNRESET|EPIPE|UND_ERR_SOCKET|UND_ERR_CLOSED)$/;
/** undici's own body timeout (300 s by default), which an idle limit at or near it may race. */
const BODY_TIMEOUT_CODE = "UND_ERR_BODY_TIMEOUT";
/** An error body is read this far at most: only its first line or `error.message` is ever quoted. */
const MAX_ERROR_BODY_BYTES = 64 * 1024;

/** POSTs one call; an HTTP error or a failed connection throws with a message fit for a client. */
export async function postCall(
  agentId: string,
  endpoint: string,
  call: UpstreamCall,
  options: { signal: AbortSignal; stream: boolean; headers?: Record<string, string> },
): Promise<Response> {
  let res: Response;
  try {
    res = await fetch(callUrl(endpoint, call), {
      method: "POST",
      headers: {
        "content-type": callContentType(call),
        accept: options.stream ? "text/event-stream, application/json" : "application/json",
        ...options.headers,
        ...call.headers,
      },
      body: callBody(call),
      signal: options.signal,
    });
  } catch (err) {
    if (options.signal.aborted) throw err;
    const cause = (err as { cause?: { message?: string; code?: string } }).cause;
    const why = cause?.code ?? cause?.message ?? "connection failed";
    // A reset or closed socket happened after connecting; anything else never reached the agent.
    if (CUT_CODES.test(cause?.code ?? "")) throw new Error(`Upstream agent ${agentId} closed the connection before answering (${why})`);
    throw new UpstreamUnreachable(`Upstream agent ${agentId} is unreachable (${why})`);
  }
  if (!res.ok) throw new Error(`Upstream agent ${agentId} answered HTTP ${res.status} ${reasonPhrase(res)}${await errorDetail(res)}`);
  return res;
}

function reasonPhrase(res: Response): string {
  return res.statusText || STATUS_CODES[res.status] || "error";
}

/**
 * What an error response says, when it says it briefly: the `error.message` of a JSON body (a JSON-RPC
 * error, or the google.rpc.Status of the HTTP+JSON binding), or a one-line plain text reason. Anything else
 * (an HTML error page, a long dump) is left out: the status says enough.
 */
async function errorDetail(res: Response): Promise<string> {
  const type = res.headers.get("content-type") ?? "";
  const text = await boundedText(res, MAX_ERROR_BODY_BYTES).catch(() => "");
  if (type.includes("json")) {
    try {
      const message = (JSON.parse(text) as { error?: { message?: unknown } })?.error?.message;
      return typeof message === "string" && message !== "" ? `: ${message.slice(0, MAX_REASON_CHARS)}` : "";
    } catch {
      return "";
    }
  }
  const line = text.trim();
  const plain = !type.includes("html") && !line.includes("<") && !/[\r\n]/.test(line) && line.length <= MAX_REASON_CHARS;
  return plain && line !== "" ? `: ${line}` : "";
}

/**
 * The results of an upstream SSE response to `call`, one per event, parsed with eventsource-parser and
 * unwrapped in the call's binding (an error event throws). A stream that sends nothing (no event, no
 * comment) for `idleMs` is given up with an error that says so, as is one event of more than
 * `maxEventBytes`; an early return (the turn ended or was canceled) closes the connection.
 */
export async function* sseResults(
  res: Response,
  agentId: string,
  idleMs: number,
  call: UpstreamCall,
  maxEventBytes = MAX_ANSWER_BYTES,
): AsyncGenerator<unknown> {
  if (!res.body) throw new Error(`Upstream agent ${agentId} sent an empty stream`);
  let idle = false;
  let timer: NodeJS.Timeout | undefined;
  // Comments (an upstream's heartbeats) are traffic too: a quiet but alive agent is not idle.
  const parser = new EventSourceParserStream({ onComment: () => arm(), maxBufferSize: maxEventBytes });
  const reader = res.body.pipeThrough(new TextDecoderStream()).pipeThrough(parser).getReader();
  const arm = () => {
    clearTimeout(timer);
    timer = setTimeout(() => {
      idle = true;
      void reader.cancel().catch(() => undefined);
    }, idleMs);
    timer.unref();
  };
  const idleError = () => new Error(`Upstream agent ${agentId} sent nothing for ${idleMs} ms; its stream was given up`);
  try {
    for (;;) {
      arm();
      let next: Awaited<ReturnType<typeof reader.read>>;
      try {
        next = await reader.read();
      } catch (err) {
        if (err instanceof ParseError && err.type === "max-buffer-size-exceeded") {
          throw new Error(`Upstream agent ${agentId} sent an event of more than ${maxEventBytes} characters; its stream was given up`);
        }
        const cause = (err as { cause?: { code?: string } }).cause;
        if (idle || cause?.code === BODY_TIMEOUT_CODE) throw idleError();
        // fetch reports a cut connection as "terminated": say what happened, in the agent's terms.
        throw new Error(`Upstream agent ${agentId} closed its stream before a final status (${cause?.code ?? "connection closed"})`);
      }
      if (idle) throw idleError();
      if (next.done) return;
      let payload: unknown;
      try {
        payload = JSON.parse(next.value.data);
      } catch {
        throw new Error(`Upstream agent ${agentId} sent an event that is not JSON`);
      }
      yield callResult(payload, agentId, call, "stream");
    }
  } finally {
    clearTimeout(timer);
    // Early return (turn canceled or ended): cancelling the parser's stream closes the connection too.
    await reader.cancel().catch(() => undefined);
  }
}
