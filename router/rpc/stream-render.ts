import type { Dialect, OutboundEvent } from "../dialects/index.js";
import type { RpcId } from "./envelope.js";
import { successFrame } from "./envelope.js";

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
 * `result` and differ only in the request id wrapped around it. Keyed weakly by the event object, so
 * the cache lives exactly as long as the fan-out holds the event.
 */
const cache = new Map<string, WeakMap<object, string | Buffer>>();

function renderResult(dialect: Dialect, event: OutboundEvent): string | Buffer {
  let perDialect = cache.get(dialect.name);
  if (!perDialect) cache.set(dialect.name, (perDialect = new WeakMap()));
  let out = perDialect.get(event);
  if (out === undefined) {
    const json = JSON.stringify(dialect.renderEvent(event));
    out = json.length < SHARED_RESULT_CHARS ? json : Buffer.from(json);
    perDialect.set(event, out);
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
