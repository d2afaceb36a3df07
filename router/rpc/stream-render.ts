import type { Dialect, OutboundEvent } from "../dialects/dialect.js";
import type { RpcId } from "./envelope.js";
import { successFrame } from "./envelope.js";
import { formatEvent } from "../sse/format.js";

/**
 * Renders each logged event once per dialect: streams of the same dialect share the JSON of an event's
 * `result` and differ only in the request id wrapped around it. Keyed weakly by the event object, so
 * the cache lives exactly as long as the fan-out holds the event. Large results are kept as one Buffer
 * (encoded once, written by every stream as is, and outside V8's heap) instead of as a string.
 */
const cache = new Map<string, WeakMap<object, string | Buffer>>();

/** Results at least this long (UTF-16 units) are shared as a Buffer rather than copied into each frame. */
const SHARED_RESULT_CHARS = 16 * 1024;

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

export function renderResultJson(dialect: Dialect, event: OutboundEvent): string {
  const out = renderResult(dialect, event);
  return typeof out === "string" ? out : out.toString();
}

/** One SSE frame: `id: <seq>` for logged events, none for synthetic snapshots. */
export function eventFrame(dialect: Dialect, requestId: RpcId, event: OutboundEvent): string {
  // The hot path of every stream: built directly, without formatEvent's line checks, because a seq is an
  // integer and JSON.stringify never writes a raw CR or LF, so both are single lines by construction.
  const data = successFrame(requestId, renderResultJson(dialect, event));
  if (typeof event.seq === "number") return `id: ${event.seq}\ndata: ${data}\n\n`;
  return formatEvent(data, event.seq);
}

/**
 * What a stream writes: one string, or pieces written back to back (a writev). Large results travel as
 * one Buffer shared by every stream of the dialect, so twenty streams of a 200 KB event encode it once,
 * not twenty times (the copies were most of a fan-out's memory and garbage).
 */
export type FrameChunk = string | Array<string | Uint8Array>;

/** The frames of a batch of logged events: small ones concatenated, large results as shared pieces. */
export function eventFrames(dialect: Dialect, requestId: RpcId, events: readonly OutboundEvent[]): FrameChunk {
  let text = "";
  let pieces: Array<string | Uint8Array> | undefined;
  for (const e of events) {
    const result = renderResult(dialect, e);
    if (typeof result === "string" || typeof e.seq !== "number") {
      text += eventFrame(dialect, requestId, e);
      continue;
    }
    pieces ??= [];
    pieces.push(`${text}id: ${e.seq}\ndata: {"jsonrpc":"2.0","id":${JSON.stringify(requestId)},"result":`, result);
    text = "}\n\n";
  }
  if (!pieces) return text;
  if (text) pieces.push(text);
  return pieces;
}

/** A frame whose result is any value (v1.0's opening Task). */
export function valueFrame(requestId: RpcId, result: unknown): string {
  return formatEvent(successFrame(requestId, JSON.stringify(result)));
}
