import { memoForm, setMemoForm } from "../core/event-memo.js";
import type { EventStream } from "../core/event-stream.js";
import type { StreamEvent } from "../core/model.js";
import type { Dialect, OutboundEvent } from "../dialects/index.js";

/** What opens a streamed answer before the logged events: a value written as is (v1.0's opening Task), or a snapshot event. */
export type StreamOpening = { value: unknown } | { event: OutboundEvent };

/**
 * A streamed answer as the request handler gives it, before any binding has framed it: the dialect it is
 * written in, what opens it, and the task's logged events (absent: nothing live follows the opening).
 */
export interface StreamReply {
  dialect: Dialect;
  opening: StreamOpening[];
  events?: EventStream;
}

/**
 * One message of a streamed answer as a binding frames it: its data and, for logged events, the seq a
 * transport writes as its event id (SSE `id:`).
 */
export interface StreamMessage {
  /** The logged event's seq; absent for synthetic snapshots and opening values, which are not in the log. */
  seq?: number;
  /**
   * JSON text, or JSON text in pieces written back to back: a large result is one Buffer shared by every
   * stream of the dialect, so twenty streams of a 200 KB event encode and hold it once, not twenty times
   * (those copies were most of a fan-out's memory and garbage).
   */
  data: string | ReadonlyArray<string | Uint8Array>;
}

/**
 * How a binding wraps one result's JSON text (or a shared Buffer of it) as a message's data: JSON-RPC puts
 * it in a response object with the request's id, REST writes it bare.
 */
export type ResultFrame = (result: string | Buffer) => StreamMessage["data"];

/** Results at least this long (UTF-16 units) are shared as a Buffer rather than copied into each message. */
const SHARED_RESULT_CHARS = 16 * 1024;

/**
 * Renders each logged event once per dialect: streams of the same dialect share the JSON of an event's
 * result, whatever binding frames it. Memoized on the event object (router/core/event-memo.ts), so it lives
 * exactly as long as the fan-out holds the event.
 */
export function renderResult(dialect: Dialect, event: OutboundEvent): string | Buffer {
  let out = memoForm(event, dialect.name);
  if (out === undefined) {
    const json = JSON.stringify(dialect.renderEvent(event));
    out = json.length < SHARED_RESULT_CHARS ? json : Buffer.from(json);
    setMemoForm(event, dialect.name, out);
  }
  return out;
}

/** The message of one event, framed by `frame`, with its seq when it is logged. */
export function eventMessageOf(dialect: Dialect, frame: ResultFrame, event: OutboundEvent): StreamMessage {
  const data = frame(renderResult(dialect, event));
  return event.seq === undefined ? { data } : { seq: event.seq, data };
}

/**
 * The messages of one streamed answer in one binding: the opening ones, then the task's logged events, a
 * batch at a time, each rendered once per dialect and framed by the binding. An idle stream holds only this
 * and its events' reader: the opening is let go once taken, and there is no generator or promise per layer.
 * It is what the SSE relay reads (router/sse/relay.ts), and also an AsyncIterable of messages.
 */
export class MessageStream implements AsyncIterable<StreamMessage> {
  readonly #dialect: Dialect;
  readonly #frame: ResultFrame;
  #opening: StreamOpening[] | undefined;
  readonly #events: EventStream | undefined;

  constructor(reply: StreamReply, frame: ResultFrame) {
    this.#dialect = reply.dialect;
    this.#frame = frame;
    this.#opening = reply.opening.length ? reply.opening : undefined;
    this.#events = reply.events;
  }

  /** The messages ready when the stream opened; handed over once (later calls answer none). */
  opening(): StreamMessage[] {
    const opening = this.#opening ?? [];
    this.#opening = undefined;
    return opening.map((o) => ("event" in o ? this.message(o.event) : { data: this.#frame(JSON.stringify(o.value)) }));
  }

  /**
   * The next batch of logged events to `done` (render each with `message`), undefined once the stream is
   * over; a read error to `failed` (see EventStream.read: either may run at once, neither may throw).
   */
  readEvents(done: (events: StreamEvent[] | undefined) => void, failed: (err: unknown) => void): void {
    if (this.#events) this.#events.read(done, failed);
    else done(undefined);
  }

  /** The message of one event. */
  message(event: OutboundEvent): StreamMessage {
    return eventMessageOf(this.#dialect, this.#frame, event);
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
