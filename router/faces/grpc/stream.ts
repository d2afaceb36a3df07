import { Metadata, type ServerWritableStream } from "@grpc/grpc-js";
import { memoForm, setMemoForm } from "../../core/event-memo.js";
import type { StreamEvent } from "../../core/model.js";
import type { OutboundEvent } from "../../dialects/index.js";
import { encodeJson, messageType } from "../../dialects/v10/grpc/proto.js";
import { encodeStreamResponse } from "../../dialects/v10/grpc/stream-encoder.js";
import type { StreamReply } from "../../handler/index.js";
import { grpcStatus } from "./errors.js";

/** What a relay reports: a stream opened and ended (an open-streams gauge), a failure while relaying. */
export interface GrpcRelayOptions {
  onError: (err: unknown) => void;
  onOpen?: () => void;
  onEnd?: () => void;
}

/** The response header naming the seq a stream's logged events follow (the value that would replay them all). */
export const SEQ_HEADER = "last-event-id";

const STREAM_RESPONSE = messageType("lf.a2a.v1.StreamResponse");
/** The memo key of an event's StreamResponse bytes: every gRPC stream of the event shares one encoding. */
const MEMO_KEY = "v1.0+grpc";

/**
 * Writes a streamed answer (SendStreamingMessage, SubscribeToTask) to a gRPC server stream as StreamResponse
 * messages: the opening, then the task's logged events a batch at a time, until the stream is over or the
 * client cancels (which stops reading the task's events, never the task). Driven by callbacks as the SSE relay
 * is (router/sse/relay.ts): an idle stream waits on one read callback. A full transport is waited on
 * (`write` returning false, then 'drain'), never buffered around, so a slow client holds what the engine's
 * per-stream byte bound allows and no more.
 */
export function relayGrpc(call: ServerWritableStream<unknown, Uint8Array>, reply: StreamReply, options: GrpcRelayOptions): void {
  new GrpcRelay(call, reply, options).start();
}

class GrpcRelay {
  readonly #call: ServerWritableStream<unknown, Uint8Array>;
  readonly #reply: StreamReply;
  readonly #options: GrpcRelayOptions;
  #ended = false;

  constructor(call: ServerWritableStream<unknown, Uint8Array>, reply: StreamReply, options: GrpcRelayOptions) {
    this.#call = call;
    this.#reply = reply;
    this.#options = options;
  }

  start(): void {
    this.#options.onOpen?.();
    this.#call.once("cancelled", () => this.#stop());
    // A connection that breaks without a cancel (the peer vanished) ends the stream as well.
    this.#call.once("close", () => this.#stop());
    this.#guard(() => {
      // gRPC messages carry no id as SSE events do: the response headers say the seq the stream's logged events
      // follow (every message but an opening Task is one, in log order without gaps), so a client knows the
      // seq of each one it got and resumes exactly with `last-event-id` (CONTRACT 4 and 17).
      const { events } = this.#reply;
      if (events) {
        const headers = new Metadata();
        headers.set(SEQ_HEADER, String(events.position));
        this.#call.sendMetadata(headers);
      }
      const first = this.#reply.opening.map((o) => ("event" in o ? this.#encodeEvent(o.event) : encodeJson(STREAM_RESPONSE, o.value)));
      this.#write(first, 0);
    });
  }

  readonly #onBatch = (batch: StreamEvent[] | undefined): void =>
    this.#guard(() =>
      batch
        ? this.#write(
            batch.map((e) => this.#encodeEvent(e)),
            0,
          )
        : this.#finish(),
    );

  readonly #onError = (err: unknown): void => this.#fail(err);

  #pull(): void {
    if (this.#reply.events) this.#reply.events.read(this.#onBatch, this.#onError);
    else this.#finish();
  }

  /** Writes `batch` from `from` on, waiting for 'drain' while the transport is full, then pulls the next batch. */
  #write(batch: Uint8Array[], from: number): void {
    for (let i = from; i < batch.length; ) {
      if (this.#ended) return;
      if (!this.#call.write(batch[i++]!)) {
        const at = i;
        this.#call.once("drain", () => this.#guard(() => this.#write(batch, at)));
        return;
      }
    }
    if (!this.#ended) this.#pull();
  }

  /** An event's StreamResponse bytes, encoded once per event whichever streams carry it. */
  #encodeEvent(event: OutboundEvent): Uint8Array {
    const memo = memoForm(event, MEMO_KEY);
    if (memo instanceof Buffer) return memo;
    const buf = encodeStreamResponse(this.#reply.dialect.renderEvent(event));
    setMemoForm(event, MEMO_KEY, buf);
    return buf;
  }

  #guard(step: () => void): void {
    try {
      step();
    } catch (err) {
      this.#fail(err);
    }
  }

  /** The stream is over: OK status. */
  #finish(): void {
    if (this.#stop()) this.#call.end();
  }

  /** Reading or encoding failed: the stream ends with the error's status. */
  #fail(err: unknown): void {
    this.#options.onError(err);
    if (this.#stop()) this.#call.emit("error", grpcStatus(err));
  }

  /** Stops reading the task's events (never the task); true the first time. */
  #stop(): boolean {
    if (this.#ended) return false;
    this.#ended = true;
    this.#options.onEnd?.();
    this.#reply.events?.close();
    return true;
  }
}
