import { EventSourceParserStream, ParseError } from "eventsource-parser/stream";
import { AnswerTooLarge, boundedText } from "./bounded-read.js";
import { callBody, callContentType, callUrl, callVerb } from "./binding.js";
import type { ClientCall } from "./call.js";

/**
 * The one HTTP and SSE client of the A2A wire, whatever the dialect and binding: fetch for the request,
 * bounded reads for JSON bodies, eventsource-parser for streams (with an idle limit and a bound per event).
 * The router's upstream connector (router/upstream) and the CLI (router/cli) both use it. Failures are
 * TransportErrors that say what happened (never reached, cut, too large, not JSON, silent); each caller
 * words them in its own terms (an upstream's failed task, the CLI's one stderr line and exit code).
 */

/** What went wrong with an exchange, before any answer could be read as A2A. */
export type TransportFault =
  /** The connection could not be made: the server was never reached. */
  | "unreachable"
  /** The connection was made, then closed before the response began. */
  | "cut"
  /** The response began, then its body broke off. */
  | "lost"
  /** A body or one event past its bound. */
  | "too-large"
  /** A body or one event that is not JSON. */
  | "not-json"
  /** A stream that sent nothing (no event, no comment) for its idle limit. */
  | "idle"
  /** A response that should have a body and has none. */
  | "empty";

/** A failed exchange: `fault` says what; `connection` is the socket error that caused it, if one did. */
export class TransportError extends Error {
  override name = "TransportError";
  constructor(
    readonly fault: TransportFault,
    readonly connection: { code?: string; message?: string } = {},
  ) {
    super(connection.message || connection.code || fault);
  }
}

/** undici's errors for a connection that closed under a request: it had reached the server. */
const CUT_CODES = /^(ECONNRESET|EPIPE|UND_ERR_SOCKET|UND_ERR_CLOSED)$/;
/** undici's own body timeout (300 s by default), which an idle limit at or near it may race. */
const BODY_TIMEOUT_CODE = "UND_ERR_BODY_TIMEOUT";
/** An error body is read this far at most: only its first line or `error.message` is ever quoted. */
const MAX_ERROR_BODY_BYTES = 64 * 1024;
/** The longest server error message quoted in a failure message. */
export const MAX_REASON_CHARS = 200;

/** What a request sends besides its call: headers (a caller's, credentials) and what it accepts. */
export interface RequestOptions {
  headers?: Record<string, string>;
  /** Ask for an SSE answer (a JSON one is still accepted: a server may answer a stream with one response). */
  stream?: boolean;
  /** Resume a stream after this event id (`Last-Event-ID`). */
  lastEventId?: string;
  signal?: AbortSignal;
  /** Wait as long as the server takes (see patientDispatcher); else fetch's own 300 s limits hold. */
  patient?: boolean;
}

/** Sends `call` to `endpoint` in its binding and resolves with the response, whatever its status. */
export async function sendCall(endpoint: string, call: ClientCall, options: RequestOptions = {}): Promise<Response> {
  const body = callBody(call);
  return request(callUrl(endpoint, call), {
    method: callVerb(call),
    headers: {
      ...(body !== undefined && { "content-type": callContentType(call) }),
      accept: options.stream ? "text/event-stream, application/json" : "application/json",
      ...options.headers,
      ...call.headers,
      ...(options.lastEventId !== undefined && { "Last-Event-ID": options.lastEventId }),
    },
    ...(body !== undefined && { body }),
    ...(options.signal && { signal: options.signal }),
    ...(options.patient && { dispatcher: await patientDispatcher() }),
  });
}

/** Where undici (Node's fetch) keeps its global dispatcher, an Agent, once the first fetch made it. */
const GLOBAL_DISPATCHER = Symbol.for("undici.globalDispatcher.1");
let patient: Promise<RequestInit["dispatcher"]> | undefined;

/**
 * A dispatcher without fetch's own deadlines (undici's 300 s for the response to begin and between body
 * chunks), for a caller that must wait as long as the server takes: the CLI's blocking send rightly waits
 * up to the server's task timeout (10 minutes by default). Node ships undici without exporting it, so the
 * Agent class is the global dispatcher's, made by a first fetch (of a data: URL, no I/O). Undefined (fetch's
 * defaults) if a Node release keeps it elsewhere.
 */
export function patientDispatcher(): Promise<RequestInit["dispatcher"]> {
  patient ??= fetch("data:,").then(
    () => {
      const Agent = (globalThis as Record<symbol, { constructor?: new (options: object) => RequestInit["dispatcher"] } | undefined>)[GLOBAL_DISPATCHER]
        ?.constructor;
      return Agent ? new Agent({ headersTimeout: 0, bodyTimeout: 0 }) : undefined;
    },
    () => undefined,
  );
  return patient;
}

/**
 * One HTTP request (a call's, or a GET for a card). A connection that fails throws a TransportError:
 * `cut` when it had reached the server (reset or closed under the request), else `unreachable`. An abort
 * through `init.signal` throws the abort as is.
 */
export async function request(url: string, init: RequestInit): Promise<Response> {
  try {
    return await fetch(url, init);
  } catch (err) {
    if (init.signal?.aborted) throw err;
    const cause = (err as { cause?: { message?: string; code?: string } }).cause ?? {};
    throw new TransportError(CUT_CODES.test(cause.code ?? "") ? "cut" : "unreachable", { code: cause.code, message: cause.message ?? "connection failed" });
  }
}

/** Whether a response is an SSE stream (else it is one JSON answer). */
export function isEventStream(res: Response): boolean {
  return (res.headers.get("content-type") ?? "").includes("text/event-stream");
}

/** A response body as JSON, if it takes at most `maxBytes`: else `too-large`, `lost` or `not-json`. */
export async function readJson(res: Response, maxBytes: number): Promise<unknown> {
  let text: string;
  try {
    text = await boundedText(res, maxBytes);
  } catch (err) {
    if (err instanceof AnswerTooLarge) throw new TransportError("too-large", { message: err.message });
    throw new TransportError("lost", lostCause(err));
  }
  try {
    return JSON.parse(text);
  } catch {
    throw new TransportError("not-json");
  }
}

/**
 * What an error response says, when it says it briefly: the `error.message` of a JSON body (a JSON-RPC
 * error, or the google.rpc.Status of the HTTP+JSON binding), or a one-line plain text reason. Anything else
 * (an HTML error page, a long dump) is left out: the status says enough.
 */
export async function errorDetail(res: Response): Promise<string | undefined> {
  const type = res.headers.get("content-type") ?? "";
  const text = await boundedText(res, MAX_ERROR_BODY_BYTES).catch(() => "");
  if (type.includes("json")) {
    try {
      const message = (JSON.parse(text) as { error?: { message?: unknown } })?.error?.message;
      return typeof message === "string" && message !== "" ? message.slice(0, MAX_REASON_CHARS) : undefined;
    } catch {
      return undefined;
    }
  }
  const line = text.trim();
  const plain = !type.includes("html") && !line.includes("<") && !/[\r\n]/.test(line) && line.length <= MAX_REASON_CHARS;
  return plain && line !== "" ? line : undefined;
}

/** One SSE event: its `id` (a log position, when the server sends one), its `event` name, and its data as JSON. */
export interface SseEvent {
  id?: string;
  event?: string;
  data: unknown;
}

/** Bounds of a stream read: `maxEventBytes` per event; `idleMs` of silence (no event, no comment) at most. */
export interface StreamLimits {
  maxEventBytes: number;
  idleMs?: number;
  /** The request's signal: once it aborted, a read's failure is the abort, thrown as is. */
  signal?: AbortSignal;
}

/**
 * The events of an SSE response, parsed with eventsource-parser, each event's data as JSON. A stream silent
 * for `idleMs` is given up (`idle`), as is one event past `maxEventBytes` (`too-large`); a body that breaks
 * off is `lost`. An early return (the caller has what it needed, or gave up) closes the connection.
 */
export async function* readEvents(res: Response, limits: StreamLimits): AsyncGenerator<SseEvent> {
  if (!res.body) throw new TransportError("empty");
  let idle = false;
  let timer: NodeJS.Timeout | undefined;
  // Comments (a server's heartbeats) are traffic too: a quiet but alive server is not idle.
  const parser = new EventSourceParserStream({ onComment: () => arm(), maxBufferSize: limits.maxEventBytes });
  const reader = res.body.pipeThrough(new TextDecoderStream()).pipeThrough(parser).getReader();
  const arm = () => {
    if (limits.idleMs === undefined) return;
    clearTimeout(timer);
    timer = setTimeout(() => {
      idle = true;
      void reader.cancel().catch(() => undefined);
    }, limits.idleMs);
    timer.unref();
  };
  try {
    for (;;) {
      arm();
      let next: Awaited<ReturnType<typeof reader.read>>;
      try {
        next = await reader.read();
      } catch (err) {
        if (limits.signal?.aborted) throw err;
        if (err instanceof ParseError && err.type === "max-buffer-size-exceeded") throw new TransportError("too-large");
        if (idle || (err as { cause?: { code?: string } }).cause?.code === BODY_TIMEOUT_CODE) throw new TransportError("idle");
        throw new TransportError("lost", lostCause(err));
      }
      if (idle) throw new TransportError("idle");
      if (next.done) return;
      let data: unknown;
      try {
        data = JSON.parse(next.value.data);
      } catch {
        throw new TransportError("not-json");
      }
      yield { ...(next.value.id !== undefined && { id: next.value.id }), ...(next.value.event !== undefined && { event: next.value.event }), data };
    }
  } finally {
    clearTimeout(timer);
    // Early return: cancelling the parser's stream closes the connection too.
    await reader.cancel().catch(() => undefined);
  }
}

/** fetch reports a body cut off as "terminated", its cause holding the socket's code. */
function lostCause(err: unknown): { code?: string; message?: string } {
  const cause = (err as { cause?: { code?: string; message?: string } }).cause;
  return { ...(cause?.code !== undefined && { code: cause.code }), message: cause?.message ?? (err as Error)?.message ?? "connection closed" };
}
