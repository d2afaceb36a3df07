import type { Request, Response } from "express";
import type { Logger } from "pino";
import type { StreamEvent } from "../core/model.js";
import type { RouterMetrics } from "../observability/metrics.js";
import { failure } from "../jsonrpc/envelope.js";
import { RpcError } from "../rpc/errors.js";
import type { Dispatcher } from "../rpc/dispatcher.js";
import type { MessageStream, StreamMessage } from "../rpc/stream-render.js";
import { exceedsDepth, MAX_JSON_DEPTH } from "../schema/depth.js";
import { formatEvent, formatEventPieces, formatJsonEvent } from "../sse/format.js";
import { SseWriter } from "../sse/writer.js";
import { callerOf } from "./auth.js";
import { requestOrigin } from "./origin.js";

export interface RpcRouteDeps {
  dispatcher: Dispatcher;
  heartbeatMs: number;
  logger: Logger;
  metrics: RouterMetrics;
}

/** The express adapter around the dispatcher: parses the body, answers JSON, or frames a stream's messages as SSE. */
export function rpcHandler(deps: RpcRouteDeps) {
  return async (req: Request, res: Response): Promise<void> => {
    let body: unknown;
    try {
      body = JSON.parse(typeof req.body === "string" ? req.body : "");
      // A stream keeps its request for its whole life: the raw text is not needed once parsed.
      req.body = undefined;
    } catch {
      // JSON.parse's own text names JavaScript internals; the client only needs to know the body is not JSON.
      res.status(200).json(failure(null, RpcError.parse("the body is not valid JSON").toJSON()));
      return;
    }
    if (exceedsDepth(body)) {
      res.status(200).json(failure(null, RpcError.invalidRequest(`JSON nests deeper than ${MAX_JSON_DEPTH} levels`).toJSON()));
      return;
    }
    const result = await deps.dispatcher.dispatch(body, {
      // v1.0 3.6: the version may also come as a query parameter.
      a2aVersion: req.get("a2a-version") ?? (typeof req.query["A2A-Version"] === "string" ? req.query["A2A-Version"] : undefined),
      lastEventId: req.get("last-event-id"),
      pathAgentId: typeof req.params.agentId === "string" ? req.params.agentId : undefined,
      caller: callerOf(res),
      origin: requestOrigin(req),
    });
    if (result.kind === "json") {
      if (result.body === undefined) res.status(204).end();
      else sendJson(res, result.body);
      return;
    }
    // The handler returns now and the stream goes on without it, so nothing of the request's routing stays
    // reachable from an idle stream: not this handler's frame (the parsed body), and not express's router
    // state for the request, which `req.next` would keep for as long as the connection lives.
    req.next = undefined;
    new SseRelay(res, result.messages, deps).start();
  };
}

/** Frames of one batch are joined into one write up to about this many characters. */
const COALESCE_CHARS = 32 * 1024;

/** A message's SSE frame: its data is JSON text (StreamMessage), so a logged event's frame needs no scan. */
function frameOf({ data, seq }: StreamMessage): string | Array<string | Uint8Array> {
  if (typeof data !== "string") return formatEventPieces(data, seq);
  return seq === undefined ? formatEvent(data) : formatJsonEvent(data, seq);
}

/** res.json without the ETag: hashing every answer buys nothing on a POST (no conditional requests). */
function sendJson(res: Response, body: unknown): void {
  res.statusCode = 200;
  res.setHeader("Content-Type", "application/json; charset=utf-8");
  res.end(JSON.stringify(body));
}

/**
 * Writes one stream's messages as SSE until the stream ends or the client goes away (which closes it).
 * Driven by callbacks rather than an async loop: an idle stream waits with two callbacks, without a suspended
 * frame or a promise of its own.
 */
class SseRelay {
  readonly #writer: SseWriter;
  readonly #messages: MessageStream;
  readonly #deps: RpcRouteDeps;
  #ended = false;

  constructor(res: Response, messages: MessageStream, deps: RpcRouteDeps) {
    this.#messages = messages;
    this.#deps = deps;
    this.#writer = new SseWriter(res, deps.heartbeatMs, () => messages.close());
  }

  start(): void {
    this.#deps.metrics.sseStreams.inc();
    this.#guard(() => {
      this.#writer.open();
      this.#write(this.#messages.opening(), 0);
    });
  }

  /** Asks for the next batch of events: an idle stream waits here, on these two callbacks. */
  #pull(): void {
    this.#messages.readEvents(this.#onEvents, this.#onError);
  }

  readonly #onEvents = (events: StreamEvent[] | undefined): void =>
    this.#guard(() => (events ? this.#write(events.map((e) => this.#messages.message(e)), 0) : this.#end()));

  readonly #onError = (err: unknown): void => this.#fail(err);

  /** Writes `batch` from `from` on, waiting while the socket is full, then pulls the next batch. */
  #write(batch: StreamMessage[], from: number): void {
    const writer = this.#writer;
    for (let i = from; i < batch.length; ) {
      if (writer.closed) return this.#end();
      let frame = frameOf(batch[i++]!);
      // A batch's small frames leave in one write: one HTTP chunk and one syscall for many events, and
      // one chunk for the client's parser (a write per event was most of a fast stream's socket cost).
      while (typeof frame === "string" && frame.length < COALESCE_CHARS && i < batch.length) {
        const next = frameOf(batch[i]!);
        if (typeof next !== "string") break;
        frame += next;
        i++;
      }
      if (!writer.write(frame)) {
        const at = i;
        void writer.drained().then(() => this.#guard(() => this.#write(batch, at)));
        return;
      }
    }
    if (writer.closed) this.#end();
    else this.#pull();
  }

  #guard(step: () => void): void {
    try {
      step();
    } catch (err) {
      this.#fail(err);
    }
  }

  #fail(err: unknown): void {
    this.#deps.logger.error({ err }, "stream failed");
    this.#end();
  }

  #end(): void {
    if (this.#ended) return;
    this.#ended = true;
    this.#deps.metrics.sseStreams.dec();
    this.#messages.close();
    this.#writer.end();
  }
}
