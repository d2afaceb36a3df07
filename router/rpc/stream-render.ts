import { memoForm, setMemoForm } from "../core/event-memo.js";
import type { EventStream } from "../core/event-stream.js";
import type { StreamEvent } from "../core/model.js";
import type { Dialect, OutboundEvent } from "../dialects/index.js";
import type { RpcId } from "../jsonrpc/envelope.js";
import { successFrame } from "../jsonrpc/envelope.js";

/**
 * One message of a streaming JSON-RPC response: the serialized response object and, for logged events, the
 * seq that the transport writes as its event id. Serialized here, once, because every stream of a dialect
 * shares an event's `result` JSON: the SSE adapter only frames it.
 */
export interface StreamMessage {
  /** The logged event's seq; absent for synthetic snapshots, which are not in the log. */
  seq?: number;
  /**
   * The JSON text of one JSON-RPC response object, or that text in pieces written back to back: a large
   * `result` is one Buffer shared by every stream of the dialect, so twenty streams of a 200 KB event encode
   * and hold it once, not twenty times (those copies were most of a fan-out's memory and garbage).
   */
  data: string | ReadonlyArray<string | Uint8Array>;
}

/** Results at least this long (UTF-16 units) are shared as a Buffer rather than copied into each message. */
const SHARED_RESULT_CHARS = 16 * 1024;

/**
 * Renders each logged event once per dialect: streams of the same dialect share the JSON of an event's
 * `result` and differ only in the request id wrapped around it. Memoized on the event object
 * (router/core/event-memo.ts), so it lives exactly as long as the fan-out holds the event.
 */
function renderResult(dialect: Dialect, event: OutboundEvent): string | Buffer {
  let out = memoForm(event, dialect.name);
  if (out === undefined) {
    const json = JSON.stringify(dialect.renderEvent(event));
    out = json.length < SHARED_RESULT_CHARS ? json : Buffer.from(json);
    setMemoForm(event, dialect.name, out);
  }
  return out;
}

/** The response message of one event, with its seq when it is logged. */
export function eventMessage(dialect: Dialect, requestId: RpcId, event: OutboundEvent): StreamMessage {
  const result = renderResult(dialect, event);
  const data = typeof result === "string" ? successFrame(requestId, result) : [successFrame(requestId, "").slice(0, -1), result, "}"];
  return event.seq === undefined ? { data } : { seq: event.seq, data };
}

/** A message whose result is any value (v1.0's opening Task). */
export function valueMessage(requestId: RpcId, result: unknown): StreamMessage {
  return { data: successFrame(requestId, JSON.stringify(result)) };
}

/**
 * The messages of one streaming response: those ready when it opens (v1.0's opening Task, resubscribe's
 * snapshot), then the task's logged events, a batch at a time, each rendered as its message. An idle stream
 * holds only this and its events' reader: the opening messages are let go once taken, and there is no
 * generator or promise per layer. It is also an AsyncIterable of messages.
 */
export class MessageStream implements AsyncIterable<StreamMessage> {
  readonly #dialect: Dialect;
  readonly #requestId: RpcId;
  #opening: StreamMessage[] | undefined;
  readonly #events: EventStream | undefined;

  /** `events` absent: nothing live follows the opening messages. */
  constructor(dialect: Dialect, requestId: RpcId, opening: StreamMessage[], events: EventStream | undefined) {
    this.#dialect = dialect;
    this.#requestId = requestId;
    this.#opening = opening.length ? opening : undefined;
    this.#events = events;
  }

  /** The messages ready when the stream opened; handed over once (later calls answer none). */
  opening(): StreamMessage[] {
    const opening = this.#opening ?? [];
    this.#opening = undefined;
    return opening;
  }

  /**
   * The next batch of logged events to `done` (render each with `message`), undefined once the stream is
   * over; a read error to `failed` (see EventStream.read: either may run at once, neither may throw).
   */
  readEvents(done: (events: StreamEvent[] | undefined) => void, failed: (err: unknown) => void): void {
    if (this.#events) this.#events.read(done, failed);
    else done(undefined);
  }

  /** The message of one logged event. */
  message(event: StreamEvent): StreamMessage {
    return eventMessage(this.#dialect, this.#requestId, event);
  }

  /** The client went away, or the transport stopped: stops reading the task's events (never the task). */
  close(): void {
    this.#opening = undefined;
    this.#events?.close();
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<StreamMessage> {
    try {
      yield* this.opening();
      for await (const e of this.#events ?? []) yield this.message(e);
    } finally {
      this.close();
    }
  }
}
