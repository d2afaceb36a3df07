import { AnswerError, callResult, type ClientCall, isEventStream, readEvents, readJson, request, sendCall, TransportError } from "../client/index.js";
import { JSONRPC_CODES } from "../jsonrpc/index.js";
import { CliError, EXIT } from "./exit-codes.js";

/** An error the target answered with; exits 2 for invalid params (a bad flag value), else 1. */
export class RemoteRpcError extends CliError {
  constructor(readonly rpc: { code?: number; message?: string; data?: unknown }) {
    super(`${rpc.message} (${rpc.code})`, rpc.code === JSONRPC_CODES.INVALID_PARAMS ? EXIT.USAGE : EXIT.FAILED);
    this.name = "RemoteRpcError";
  }
}

/**
 * The connection broke while the answer was being read (the server died or restarted, a proxy cut it):
 * exit 5, like a server that cannot be reached. The task itself may go on.
 */
export class ConnectionLostError extends CliError {
  constructor(noun: string, origin: string, why: string) {
    super(`lost the connection to ${noun} at ${origin}: ${why}`, EXIT.UNREACHABLE);
    this.name = "ConnectionLostError";
  }
}

/** One event of a task stream: its log position (absent on synthetic snapshots) and its raw `result`. */
export interface StreamEvent {
  seq?: number;
  result: unknown;
}

/** The most one answer (a JSON body, one SSE event) may take. */
const MAX_ANSWER_BYTES = 64 * 1024 * 1024;

/**
 * The CLI's side of the one client transport (router/client): the calls its codec builds, sent to one
 * endpoint (no client-side deadline: a blocking send may rightly wait up to the server's task timeout),
 * and every failure said as the CLI says it (one line, an exit code). Plain GETs for cards and the
 * router's agent list too. The codec decides what is sent; this only moves it.
 */
export class A2AClient {
  #endpoint: URL;
  readonly #apiKey: string | undefined;
  /** What the messages call the server: "the router" until a card says it is another agent. */
  #noun = "the router";

  constructor(endpoint: URL, apiKey?: string) {
    this.#endpoint = endpoint;
    this.#apiKey = apiKey;
  }

  /** Points the client at the endpoint the target's dialect is spoken at. */
  use(endpoint: URL, noun: string): void {
    this.#endpoint = endpoint;
    this.#noun = noun;
  }

  get endpoint(): URL {
    return this.#endpoint;
  }

  /** Makes a call that answers once and returns its result. */
  async call(call: ClientCall, signal?: AbortSignal): Promise<unknown> {
    const res = await this.#send(call, { ...(signal && { signal }) });
    return this.#resultOf(res, call, await this.#readJson(res));
  }

  /** Makes a streaming call and yields its events until the server closes the stream. */
  async *stream(call: ClientCall, options: { lastEventId?: string; signal?: AbortSignal } = {}): AsyncGenerator<StreamEvent> {
    const res = await this.#send(call, { ...options, stream: true });
    if (!isEventStream(res)) {
      // Refused before the stream opened (bad params, unknown agent, 401), or a server that answers a
      // streaming method with one response.
      yield { result: this.#resultOf(res, call, await this.#readJson(res)) };
      return;
    }
    const events = readEvents(res, { maxEventBytes: MAX_ANSWER_BYTES, ...(options.signal && { signal: options.signal }) });
    try {
      for (;;) {
        let next: IteratorResult<{ id?: string; data: unknown }>;
        try {
          next = await events.next();
        } catch (err) {
          throw this.#streamFailure(err);
        }
        if (next.done) return;
        const { id, data } = next.value;
        const seq = id !== undefined && /^\d+$/.test(id) ? Number(id) : undefined;
        yield { ...(seq !== undefined && { seq }), result: this.#eventResult(data, call) };
      }
    } finally {
      await events.return(undefined);
    }
  }

  /**
   * GETs a JSON document (an agent card, the router's agent list). Undefined when the server answers
   * no JSON: the caller tries elsewhere or says what is missing.
   */
  async getJson(url: URL, headers: Record<string, string> = {}): Promise<{ status: number; body: unknown } | undefined> {
    const res = await this.#open(url, { method: "GET", headers: { accept: "application/json", ...this.#auth(), ...headers } });
    try {
      return { status: res.status, body: await readJson(res, MAX_ANSWER_BYTES) };
    } catch (err) {
      if (!(err instanceof TransportError)) throw err;
      if (err.fault === "too-large") throw new CliError(`the answer of ${url} is too large`, EXIT.FAILED);
      if (err.fault === "lost") throw this.#lost();
      return undefined;
    }
  }

  /** Throws the CLI's error for an HTTP refusal (401, 413, other 4xx/5xx without an error message). */
  checkStatus(status: number, body: unknown): void {
    const detail = (body as { error?: { message?: string } })?.error?.message;
    if (status === 401) {
      throw new CliError(`${this.#noun} refused the request (HTTP 401${detail ? `: ${detail}` : ""}); pass --api-key or set A2A_ROUTER_API_KEY`, EXIT.FAILED);
    }
    if (status === 413) throw new CliError(`the message is larger than ${this.#noun} accepts (HTTP 413)`, EXIT.FAILED);
    if (status >= 400 && !detail) throw new CliError(`${this.#noun} answered HTTP ${status}`, EXIT.FAILED);
  }

  #auth(): Record<string, string> {
    return this.#apiKey ? { Authorization: `Bearer ${this.#apiKey}` } : {};
  }

  #send(call: ClientCall, options: { stream?: boolean; lastEventId?: string; signal?: AbortSignal }): Promise<Response> {
    // No client-side deadline: a blocking send waits for the turn, a quiet stream for its next event.
    return this.#connect(this.#endpoint, () => sendCall(this.#endpoint.href, call, { ...options, headers: this.#auth(), patient: true }));
  }

  #open(url: URL, init: RequestInit): Promise<Response> {
    return this.#connect(url, () => request(url.href, init));
  }

  /**
   * A failure before the connection is up means the server cannot be reached; after it (e.g. while a
   * blocking send waits for the turn to end), the server went away with the request in hand.
   */
  async #connect(url: URL, open: () => Promise<Response>): Promise<Response> {
    try {
      return await open();
    } catch (err) {
      if (!(err instanceof TransportError)) throw err;
      const why = err.connection.message || err.connection.code || "connection failed";
      if (err.fault === "cut") throw new ConnectionLostError(this.#noun, url.origin, why);
      throw new CliError(`cannot reach ${this.#noun} at ${url.origin}: ${why}`, EXIT.UNREACHABLE);
    }
  }

  /** A body that broke off mid-answer: the answer was aborted (docs/cli.md). */
  #lost(): ConnectionLostError {
    return new ConnectionLostError(this.#noun, this.#endpoint.origin, "aborted");
  }

  async #readJson(res: Response): Promise<unknown> {
    try {
      return await readJson(res, MAX_ANSWER_BYTES);
    } catch (err) {
      if (!(err instanceof TransportError)) throw err;
      if (err.fault === "too-large") throw new CliError(`the answer of ${this.#noun} is too large`, EXIT.FAILED);
      if (err.fault === "not-json") {
        throw new CliError(`the server at ${this.#endpoint.origin} answered HTTP ${res.status} without JSON: is --url an A2A JSON-RPC endpoint?`, EXIT.FAILED);
      }
      throw this.#lost();
    }
  }

  #resultOf(res: Response, call: ClientCall, body: unknown): unknown {
    this.checkStatus(res.status, body);
    try {
      return callResult(body, call);
    } catch (err) {
      throw this.#answerFailure(err);
    }
  }

  #eventResult(data: unknown, call: ClientCall): unknown {
    try {
      return callResult(data, call);
    } catch (err) {
      // A JSON-RPC event without `result` is read as an empty answer, which its dialect's reader refuses.
      if (err instanceof AnswerError && err.fault === "no-result") return undefined;
      throw this.#answerFailure(err);
    }
  }

  #answerFailure(err: unknown): unknown {
    if (!(err instanceof AnswerError)) return err;
    switch (err.fault) {
      case "error":
        return new RemoteRpcError(err.error ?? {});
      case "no-result":
        return new CliError(`the answer of ${this.#noun} has neither result nor error`, EXIT.FAILED);
      case "not-object":
        return new CliError(`the answer of ${this.#noun} is not a JSON object`, EXIT.FAILED);
      case "too-deep":
        return new CliError(`the answer of ${this.#noun} is nested too deeply`, EXIT.FAILED);
    }
  }

  #streamFailure(err: unknown): unknown {
    if (!(err instanceof TransportError)) return err;
    switch (err.fault) {
      case "too-large":
        return new CliError(`an event from ${this.#noun} is larger than ${MAX_ANSWER_BYTES} characters`, EXIT.FAILED);
      case "not-json":
        return new CliError(`${this.#noun} sent a stream event that is not JSON`, EXIT.FAILED);
      default:
        return this.#lost();
    }
  }
}
