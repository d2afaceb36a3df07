import http from "node:http";
import https from "node:https";
import { createParser, type EventSourceMessage } from "eventsource-parser";
import { RPC_ERROR_CODES } from "../rpc/errors.js";
import { CliError, EXIT } from "./exit-codes.js";
import type { WireCall } from "./wire/index.js";

/** A JSON-RPC error the target answered with; exits 2 for invalid params (a bad flag value), else 1. */
export class RemoteRpcError extends CliError {
  constructor(readonly rpc: { code: number; message: string; data?: unknown }) {
    super(`${rpc.message} (${rpc.code})`, rpc.code === RPC_ERROR_CODES.INVALID_PARAMS ? EXIT.USAGE : EXIT.FAILED);
    this.name = "RemoteRpcError";
  }
}

/**
 * The connection broke while the answer was being read (the server died or restarted, a proxy cut it):
 * exit 5, like a server that cannot be reached. The task itself may go on.
 */
export class ConnectionLostError extends CliError {
  constructor(noun: string, origin: string, cause: unknown) {
    super(`lost the connection to ${noun} at ${origin}: ${(cause as Error)?.message || String(cause)}`, EXIT.UNREACHABLE);
    this.name = "ConnectionLostError";
  }
}

/** One event of a task stream: its log position (absent on synthetic snapshots) and its raw `result`. */
export interface StreamEvent {
  seq?: number;
  result: unknown;
}

const MAX_JSON_BODY = 64 * 1024 * 1024;

function isAbort(err: unknown): boolean {
  return (err as { name?: string })?.name === "AbortError";
}

/**
 * The CLI's HTTP side: JSON-RPC over node:http to one endpoint (no client-side timeouts: a blocking send
 * may rightly wait up to the server's task timeout), SSE parsed with eventsource-parser, and plain GETs
 * for cards and the router's agent list. The dialect (wire/) decides what is sent; this only moves it.
 */
export class A2AClient {
  #endpoint: URL;
  readonly #apiKey: string | undefined;
  #headers: Record<string, string> = {};
  /** What the messages call the server: "the router" until a card says it is another agent. */
  #noun = "the router";
  #nextId = 1;

  constructor(endpoint: URL, apiKey?: string) {
    this.#endpoint = endpoint;
    this.#apiKey = apiKey;
  }

  /** Points the client at the endpoint and headers the target's dialect needs. */
  use(endpoint: URL, headers: Readonly<Record<string, string>>, noun: string): void {
    this.#endpoint = endpoint;
    this.#headers = { ...headers };
    this.#noun = noun;
  }

  get endpoint(): URL {
    return this.#endpoint;
  }

  /** Calls a non-streaming method and returns its `result`. */
  async rpc(call: WireCall, signal?: AbortSignal): Promise<unknown> {
    const res = await this.#request(this.#endpoint, "POST", this.#envelope(call), "application/json", signal);
    return this.#resultOf(res, await this.#readJson(res));
  }

  /** Calls a streaming method and yields its events until the server closes the stream. */
  async *stream(call: WireCall, options: { lastEventId?: string; signal?: AbortSignal } = {}): AsyncGenerator<StreamEvent> {
    const extra = options.lastEventId !== undefined ? { "Last-Event-ID": options.lastEventId } : undefined;
    const res = await this.#request(this.#endpoint, "POST", this.#envelope(call), "text/event-stream", options.signal, extra);
    try {
      if (!String(res.headers["content-type"] ?? "").startsWith("text/event-stream")) {
        // Refused before the stream opened (bad params, unknown agent, 401), or a server that answers a
        // streaming method with one JSON-RPC response.
        yield { result: this.#resultOf(res, await this.#readJson(res)) };
        return;
      }
      const parsed: EventSourceMessage[] = [];
      let tooLarge = false;
      const parser = createParser({
        onEvent: (event) => parsed.push(event),
        // An event that never ends would hold the CLI's memory without bound: the parser stops past the bound.
        onError: (err) => (tooLarge ||= err.type === "max-buffer-size-exceeded"),
        maxBufferSize: MAX_JSON_BODY,
      });
      for await (const chunk of this.#body(res)) {
        parser.feed(chunk);
        while (parsed.length > 0) yield this.#toStreamEvent(parsed.shift()!);
        if (tooLarge) throw new CliError(`an event from ${this.#noun} is larger than ${MAX_JSON_BODY} characters`, EXIT.FAILED);
      }
    } finally {
      res.destroy();
    }
  }

  /**
   * GETs a JSON document (an agent card, the router's agent list). Undefined when the server answers
   * with an error status or no JSON: the caller tries elsewhere or says what is missing.
   */
  async getJson(url: URL, headers: Record<string, string> = {}): Promise<{ status: number; body: unknown } | undefined> {
    const res = await this.#request(url, "GET", undefined, "application/json", undefined, headers);
    let text = "";
    for await (const chunk of this.#body(res)) {
      text += chunk;
      if (text.length > MAX_JSON_BODY) throw new CliError(`the answer of ${url} is too large`, EXIT.FAILED);
    }
    try {
      return { status: res.statusCode ?? 0, body: JSON.parse(text) };
    } catch {
      return undefined;
    }
  }

  /** Throws the CLI's error for an HTTP refusal (401, 413, other 4xx/5xx without a JSON-RPC error). */
  checkStatus(status: number, body: unknown): void {
    const detail = (body as { error?: { message?: string } })?.error?.message;
    if (status === 401) {
      throw new CliError(
        `${this.#noun} refused the request (HTTP 401${detail ? `: ${detail}` : ""}); pass --api-key or set A2A_ROUTER_API_KEY`,
        EXIT.FAILED,
      );
    }
    if (status === 413) throw new CliError(`the message is larger than ${this.#noun} accepts (HTTP 413)`, EXIT.FAILED);
    if (status >= 400 && !detail) throw new CliError(`${this.#noun} answered HTTP ${status}`, EXIT.FAILED);
  }

  /** The response body as text; a connection that breaks before it ends is a ConnectionLostError. */
  async *#body(res: http.IncomingMessage): AsyncGenerator<string> {
    res.setEncoding("utf8");
    try {
      for await (const chunk of res as AsyncIterable<string>) yield chunk;
    } catch (err) {
      if (isAbort(err)) throw err;
      throw new ConnectionLostError(this.#noun, this.#endpoint.origin, err);
    }
  }

  #envelope(call: WireCall): string {
    return JSON.stringify({ jsonrpc: "2.0", id: this.#nextId++, method: call.method, params: call.params });
  }

  #request(
    url: URL,
    method: "GET" | "POST",
    body: string | undefined,
    accept: string,
    signal?: AbortSignal,
    extra?: Record<string, string>,
  ): Promise<http.IncomingMessage> {
    const headers: Record<string, string> = { Accept: accept, ...this.#headers, ...extra };
    if (body !== undefined) {
      headers["Content-Type"] = "application/json";
      headers["Content-Length"] = String(Buffer.byteLength(body));
    }
    if (this.#apiKey) headers.Authorization = `Bearer ${this.#apiKey}`;
    const transport = url.protocol === "https:" ? https : http;
    return new Promise((resolve, reject) => {
      const req = transport.request(url, { method, headers, signal }, resolve);
      // A failure before the connection is up means the server cannot be reached; after it (e.g. while
      // a blocking send waits for the turn to end), the server went away with the request in hand.
      let connected = false;
      const ready = url.protocol === "https:" ? "secureConnect" : "connect";
      req.on("socket", (socket) => {
        if (!socket.connecting && !(socket as { pending?: boolean }).pending) connected = true;
        else socket.once(ready, () => (connected = true));
      });
      req.on("error", (err: NodeJS.ErrnoException) => {
        if (isAbort(err)) reject(err);
        else if (connected) reject(new ConnectionLostError(this.#noun, url.origin, err));
        else reject(new CliError(`cannot reach ${this.#noun} at ${url.origin}: ${err.message || err.code}`, EXIT.UNREACHABLE));
      });
      req.end(body);
    });
  }

  async #readJson(res: http.IncomingMessage): Promise<unknown> {
    let text = "";
    for await (const chunk of this.#body(res)) {
      text += chunk;
      if (text.length > MAX_JSON_BODY) throw new CliError(`the answer of ${this.#noun} is too large`, EXIT.FAILED);
    }
    try {
      return JSON.parse(text);
    } catch {
      throw new CliError(
        `the server at ${this.#endpoint.origin} answered HTTP ${res.statusCode} without JSON: is --url an A2A JSON-RPC endpoint?`,
        EXIT.FAILED,
      );
    }
  }

  #resultOf(res: http.IncomingMessage, body: unknown): unknown {
    this.checkStatus(res.statusCode ?? 0, body);
    const envelope = body as { result?: unknown; error?: { code: number; message: string; data?: unknown } };
    if (envelope?.error) throw new RemoteRpcError(envelope.error);
    if (!envelope || !("result" in envelope)) throw new CliError(`the answer of ${this.#noun} has neither result nor error`, EXIT.FAILED);
    return envelope.result;
  }

  #toStreamEvent(event: EventSourceMessage): StreamEvent {
    let body: { result?: unknown; error?: { code: number; message: string; data?: unknown } };
    try {
      body = JSON.parse(event.data);
    } catch {
      throw new CliError(`${this.#noun} sent a stream event that is not JSON`, EXIT.FAILED);
    }
    if (body.error) throw new RemoteRpcError(body.error);
    const seq = event.id !== undefined && /^\d+$/.test(event.id) ? Number(event.id) : undefined;
    return { ...(seq !== undefined && { seq }), result: body.result };
  }
}
