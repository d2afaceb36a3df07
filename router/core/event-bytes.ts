/**
 * An event's JSON, serialized once per event object and shared: the store writes it, and live streams count it
 * against their byte budget (CONTRACT 12 `limits.streamBufferBytes`) without serializing again. Kept in the
 * event's memo (event-memo.ts), so it lives exactly as long as someone holds the event (the fan-out, a stream's
 * buffer).
 */
import { memoOf, peekMemo } from "./event-memo.js";
import { jsonPieces, smallJson } from "./json-pieces.js";
import type { StreamEvent } from "./model.js";

/**
 * Large events keep their JSON only until they are stored (`stored`), then only its size: a kept copy of a
 * 200 KB JSON lives as long as the event and so moves to V8's old generation, where only a full collection
 * frees it; a copy dropped right after the store wrote it dies young and cheaply.
 */
const KEEP_JSON_CHARS = 16 * 1024;

/** The event's JSON (`JSON.stringify`, or `serialized` when the caller has it), serialized on first use and memoized on the event. */
export function eventJson(event: StreamEvent, serialized?: string): string {
  const memo = peekMemo(event);
  if (memo?.json !== undefined) return memo.json;
  // Serialized before the memo is added where it can be: V8's stringify is a little slower on an object with one.
  const json = serialized ?? JSON.stringify(event);
  (memo ?? memoOf(event)).json = json;
  return json;
}

/** The store has the event: a large one's JSON is let go (its size stays known). */
export function stored(event: StreamEvent): void {
  const memo = peekMemo(event);
  if (memo?.json === undefined || memo.json.length < KEEP_JSON_CHARS) return;
  memo.bytes = memo.json.length;
  memo.json = undefined;
}

/**
 * A store has its own copy of the event's JSON (written, or posted to its writer thread): the event's copy is let
 * go, only its size kept, whatever its size. An event waits for its commit's answer for a few milliseconds of a busy
 * main thread, and its JSON was ~23% of what survived the relay's scavenges (fifteenth pass); should the commit fail,
 * a retry serializes it again.
 */
export function handedOver(event: StreamEvent): void {
  const memo = peekMemo(event);
  if (memo?.json === undefined) return;
  memo.bytes = memo.json.length;
  memo.json = undefined;
}

/** A store that parsed `event` from `bytes` of JSON says so, so nobody serializes it again to size it. */
export function noteEventBytes(event: StreamEvent, bytes: number): void {
  memoOf(event).bytes = bytes;
}

/**
 * What holding the event costs a stream, and the commit queue, in bytes: its JSON's length (UTF-16 code units,
 * near enough). A small event's JSON is made and kept (the store writes it next); a large one's is only
 * measured, in pieces (json-pieces.ts), and its size kept: a store writes it its own way (SQLite: straight to
 * bytes, `jsonUtf8`), and the memory store not at all.
 */
export function eventBytes(event: StreamEvent): number {
  const memo = peekMemo(event);
  const known = memo?.json?.length ?? memo?.bytes;
  if (known !== undefined) return known;
  const small = smallJson(event);
  if (small !== undefined) return eventJson(event, small).length;
  let bytes = 0;
  let only: string | undefined;
  let count = 0;
  for (const piece of jsonPieces(event)) {
    bytes += piece.length;
    only = count++ === 0 ? piece : undefined;
  }
  if (only !== undefined) return eventJson(event, only).length;
  memoOf(event).bytes = bytes;
  return bytes;
}

/** The event's JSON if it is kept (a small event's, once serialized), without making it. */
export function keptEventJson(event: StreamEvent): string | undefined {
  return peekMemo(event)?.json;
}
