import type { ServerResponse } from "node:http";
import { formatEvent, formatEventPieces, formatJsonEvent } from "./format.js";
import { SseWriter } from "./writer.js";

/** One SSE event to write: its data (JSON text, or JSON text in pieces) and, for a logged event, its id. */
export interface SseMessage {
  seq?: number;
  data: string | ReadonlyArray<string | Uint8Array>;
}

/**
 * What a relay reads: the messages ready when the stream opens, then batches of items pulled by callback
 * (undefined once over), each turned into its message. router/handler's MessageStream is one.
 */
export interface SseSource<T> {
  opening(): SseMessage[];
  readEvents(done: (batch: T[] | undefined) => void, failed: (err: unknown) => void): void;
  message(item: T): SseMessage;
  /** The client went away or the relay ended: stop reading. */
  close(): void;
}

export interface SseRelayOptions {
  heartbeatMs: number;
  /** Told of a failure while relaying (the stream then ends). */
  onError: (err: unknown) => void;
  /** Told when the stream opens and when it ends (an open-streams gauge). */
  onOpen?: () => void;
  onEnd?: () => void;
}

/** Frames of one batch are joined into one write up to about this many characters (also the chat faces'). */
export const COALESCE_CHARS = 32 * 1024;

/** The opening's messages are messages already. */
const asIs = (message: SseMessage): SseMessage => message;

/** An SSE frame as written: one string, or a large event's pieces. */
type Frame = string | Array<string | Uint8Array>;

/** A message's SSE frame: its data is JSON text, so a logged event's frame needs no scan. */
function frameOf({ data, seq }: SseMessage): Frame {
  if (typeof data !== "string") return formatEventPieces(data, seq);
  return seq === undefined ? formatEvent(data) : formatJsonEvent(data, seq);
}

/** Writes `source` to `res` as SSE until it ends or the client goes away (which closes it). */
export function relaySse<T>(res: ServerResponse, source: SseSource<T>, options: SseRelayOptions): void {
  new SseRelay(res, source, options).start();
}

/**
 * The one SSE write loop of every face that streams A2A events (JSON-RPC, REST). Driven by callbacks rather
 * than an async loop: an idle stream waits with two callbacks, without a suspended frame or a promise of its
 * own. A batch's frames leave in one write; a full socket is waited on, never buffered around.
 */
class SseRelay<T> {
  readonly #writer: SseWriter;
  readonly #source: SseSource<T>;
  readonly #options: SseRelayOptions;
  #ended = false;

  constructor(res: ServerResponse, source: SseSource<T>, options: SseRelayOptions) {
    this.#source = source;
    this.#options = options;
    this.#writer = new SseWriter(res, options.heartbeatMs, () => source.close());
  }

  start(): void {
    this.#options.onOpen?.();
    this.#guard(() => {
      this.#writer.open();
      this.#write(this.#source.opening(), 0, asIs);
    });
  }

  /** Asks for the next batch: an idle stream waits here, on these two callbacks. */
  #pull(): void {
    this.#source.readEvents(this.#onBatch, this.#onError);
  }

  readonly #onBatch = (batch: T[] | undefined): void => this.#guard(() => (batch ? this.#write(batch, 0, this.#messageOf) : this.#end()));

  readonly #messageOf = (item: T): SseMessage => this.#source.message(item);

  readonly #onError = (err: unknown): void => this.#fail(err);

  /**
   * Writes `batch` from `from` on, each item made a message (`messageOf`) only as its frame is written, waiting
   * while the socket is full, then pulls the next batch. Made as written, not the whole batch up front: a batch
   * waits for its client's drains a write at a time, and messages made ahead of that (with the events'
   * renderings they hold) outlived scavenges for as long as the client took (fifteenth pass).
   */
  #write<I>(batch: readonly I[], from: number, messageOf: (item: I) => SseMessage, ahead?: Frame): void {
    const writer = this.#writer;
    for (let i = from; i < batch.length || ahead !== undefined; ) {
      if (writer.closed) return this.#end();
      let frame = ahead ?? frameOf(messageOf(batch[i++]!));
      ahead = undefined;
      // A batch's small frames leave in one write: one HTTP chunk and one syscall for many events, and
      // one chunk for the client's parser (a write per event was most of a fast stream's socket cost).
      while (typeof frame === "string" && frame.length < COALESCE_CHARS && i < batch.length) {
        const next = frameOf(messageOf(batch[i++]!));
        // A frame in pieces (a large event) goes in a write of its own, next: made once, kept till then.
        if (typeof next !== "string") {
          ahead = next;
          break;
        }
        frame += next;
      }
      if (!writer.write(frame)) {
        // Only what is left waits for the drain: what was written is the socket's now.
        const rest = i < batch.length ? batch.slice(i) : [];
        const carried = ahead;
        void writer.drained().then(() => this.#guard(() => this.#write(rest, 0, messageOf, carried)));
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
    this.#options.onError(err);
    this.#end();
  }

  #end(): void {
    if (this.#ended) return;
    this.#ended = true;
    this.#options.onEnd?.();
    this.#source.close();
    this.#writer.end();
  }
}
