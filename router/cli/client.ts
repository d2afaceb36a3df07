import http from "node:http";
import https from "node:https";
import { createParser, type EventSourceMessage } from "eventsource-parser";
import { RPC_ERROR_CODES } from "../rpc/errors.js";
import { CliError, EXIT } from "./exit-codes.js";
import type { AgentListing, V01Event } from "./wire.js";

/** A JSON-RPC error the router answered with; exits 2 for invalid params (a bad flag value), else 1. */
export class RouterRpcError extends CliError {
  constructor(readonly rpc: { code: number; message: string; data?: unknown }) {
    super(`${rpc.message} (${rpc.code})`, rpc.code === RPC_ERROR_CODES.INVALID_PARAMS ? EXIT.USAGE : EXIT.FAILED);
    this.name = "RouterRpcError";
  }
}

/**
 * The connection to the router broke while its answer was being read (the router died or restarted,
 * a proxy cut it): exit 5, like a router that cannot be reached. The task itself may go on.
 */
export class ConnectionLostError extends CliError {
  constructor(origin: string, cause: unknown) {
    super(`lost the connection to the router at ${origin}: ${(cause as Error)?.message || String(cause)}`, EXIT.UNREACHABLE);
    this.name = "ConnectionLostError";
  }
}

/** One event of a task stream: its log position (absent on synthetic snapshots) and its v0.1 result. */
export interface StreamEvent {
  seq?: number;
  result: V01Event;
}

const MAX_JSON_BODY = 64 * 1024 * 1024;

function isAbort(err: unknown): boolean {
  return (err as { name?: string })?.name === "AbortError";
}

/**
 * The CLI's view of a router: v0.1 JSON-RPC over node:http (no client-side timeouts: tasks/send may
 * rightly wait up to the router's taskTimeoutMs), SSE parsed with eventsource-parser.
 */
export class RouterClient {
  readonly #rpcUrl: URL;
  readonly #agentsUrl: URL;
  readonly #apiKey: string | undefined;
  #nextId = 1;

  constructor(baseUrl: URL, apiKey?: string) {
    this.#rpcUrl = baseUrl;
    this.#agentsUrl = new URL(`${baseUrl.pathname.replace(/\/+$/, "")}/agents`, baseUrl);
    this.#apiKey = apiKey;
  }

  /** Calls a non-streaming method and returns its `result`. */
  async rpc<T>(method: string, params: unknown, signal?: AbortSignal): Promise<T> {
    const res = await this.#request(this.#rpcUrl, "POST", this.#envelope(method, params), "application/json", signal);
    const body = await this.#readJson(res);
    return this.#resultOf<T>(res, body);
  }

  /** Calls a streaming method and yields its events until the router closes the stream. */
  async *stream(method: string, params: unknown, options: { lastEventId?: string; signal?: AbortSignal } = {}): AsyncGenerator<StreamEvent> {
    const extra = options.lastEventId !== undefined ? { "Last-Event-ID": options.lastEventId } : undefined;
    const res = await this.#request(this.#rpcUrl, "POST", this.#envelope(method, params), "text/event-stream", options.signal, extra);
    try {
      if (!String(res.headers["content-type"] ?? "").startsWith("text/event-stream")) {
        // Refused before the stream opened (bad params, unknown agent, 401): a plain JSON-RPC answer.
        const result = this.#resultOf<V01Event>(res, await this.#readJson(res));
        yield { result };
        return;
      }
      const parsed: EventSourceMessage[] = [];
      const parser = createParser({ onEvent: (event) => parsed.push(event) });
      for await (const chunk of this.#body(res)) {
        parser.feed(chunk);
        while (parsed.length > 0) yield this.#toStreamEvent(parsed.shift()!);
      }
    } finally {
      res.destroy();
    }
  }

  /** GET /agents. */
  async agents(signal?: AbortSignal): Promise<AgentListing[]> {
    const res = await this.#request(this.#agentsUrl, "GET", undefined, "application/json", signal);
    const body = (await this.#readJson(res)) as { agents?: AgentListing[]; error?: { message: string } };
    this.#checkStatus(res, body);
    if (!Array.isArray(body?.agents)) throw new CliError(`${this.#agentsUrl} did not answer an agent list`, EXIT.FAILED);
    return body.agents;
  }

  /** The response body as text; a connection that breaks before it ends is a ConnectionLostError. */
  async *#body(res: http.IncomingMessage): AsyncGenerator<string> {
    res.setEncoding("utf8");
    try {
      for await (const chunk of res as AsyncIterable<string>) yield chunk;
    } catch (err) {
      if (isAbort(err)) throw err;
      throw new ConnectionLostError(this.#rpcUrl.origin, err);
    }
  }

  #envelope(method: string, params: unknown): string {
    return JSON.stringify({ jsonrpc: "2.0", id: this.#nextId++, method, params });
  }

  #request(
    url: URL,
    method: "GET" | "POST",
    body: string | undefined,
    accept: string,
    signal?: AbortSignal,
    extra?: Record<string, string>,
  ): Promise<http.IncomingMessage> {
    const headers: Record<string, string> = { Accept: accept, ...extra };
    if (body !== undefined) {
      headers["Content-Type"] = "application/json";
      headers["Content-Length"] = String(Buffer.byteLength(body));
    }
    if (this.#apiKey) headers.Authorization = `Bearer ${this.#apiKey}`;
    const transport = url.protocol === "https:" ? https : http;
    return new Promise((resolve, reject) => {
      const req = transport.request(url, { method, headers, signal }, resolve);
      // A failure before the connection is up means the router cannot be reached; after it (e.g. while
      // tasks/send waits for the turn to end), the router went away with the request in hand.
      let connected = false;
      const ready = url.protocol === "https:" ? "secureConnect" : "connect";
      req.on("socket", (socket) => {
        if (!socket.connecting && !(socket as { pending?: boolean }).pending) connected = true;
        else socket.once(ready, () => (connected = true));
      });
      req.on("error", (err: NodeJS.ErrnoException) => {
        if (isAbort(err)) reject(err);
        else if (connected) reject(new ConnectionLostError(url.origin, err));
        else reject(new CliError(`cannot reach the router at ${url.origin}: ${err.message || err.code}`, EXIT.UNREACHABLE));
      });
      req.end(body);
    });
  }

  async #readJson(res: http.IncomingMessage): Promise<unknown> {
    let text = "";
    for await (const chunk of this.#body(res)) {
      text += chunk;
      if (text.length > MAX_JSON_BODY) throw new CliError("the router's answer is too large", EXIT.FAILED);
    }
    try {
      return JSON.parse(text);
    } catch {
      throw new CliError(`the server at ${this.#rpcUrl.origin} answered HTTP ${res.statusCode} without JSON: is it an a2a-router?`, EXIT.FAILED);
    }
  }

  #checkStatus(res: http.IncomingMessage, body: unknown): void {
    const status = res.statusCode ?? 0;
    const detail = (body as { error?: { message?: string } })?.error?.message;
    if (status === 401) {
      throw new CliError(
        `the router refused the request (HTTP 401${detail ? `: ${detail}` : ""}); pass --api-key or set A2A_ROUTER_API_KEY`,
        EXIT.FAILED,
      );
    }
    if (status === 413) throw new CliError("the message is larger than the router accepts (HTTP 413)", EXIT.FAILED);
    if (status >= 400 && !detail) throw new CliError(`the router answered HTTP ${status}`, EXIT.FAILED);
  }

  #resultOf<T>(res: http.IncomingMessage, body: unknown): T {
    this.#checkStatus(res, body);
    const envelope = body as { result?: T; error?: { code: number; message: string; data?: unknown } };
    if (envelope?.error) throw new RouterRpcError(envelope.error);
    if (!envelope || !("result" in envelope)) throw new CliError("the router's answer has neither result nor error", EXIT.FAILED);
    return envelope.result as T;
  }

  #toStreamEvent(event: EventSourceMessage): StreamEvent {
    let body: { result?: V01Event; error?: { code: number; message: string; data?: unknown } };
    try {
      body = JSON.parse(event.data);
    } catch {
      throw new CliError("the router sent a stream event that is not JSON", EXIT.FAILED);
    }
    if (body.error) throw new RouterRpcError(body.error);
    const seq = event.id !== undefined && /^\d+$/.test(event.id) ? Number(event.id) : undefined;
    return { ...(seq !== undefined && { seq }), result: body.result as V01Event };
  }
}
