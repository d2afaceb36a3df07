import type { StreamEvent } from "./model.js";

/**
 * An event's JSON, serialized once per event object and shared: the store writes it, and live streams
 * count it against their byte budget (CONTRACT 12 `limits.streamBufferBytes`) without serializing again.
 * Keyed weakly, so it lives exactly as long as someone holds the event (the fan-out, a stream's buffer).
 */
const cache = new WeakMap<StreamEvent, string>();
/** Sizes of events whose JSON is not kept: large ones, and those a store parsed (see noteEventBytes). */
const sizes = new WeakMap<StreamEvent, number>();

/**
 * Large events keep their JSON only until they are stored (`stored`), then only its size: a kept copy of a
 * 200 KB JSON lives as long as the event and so moves to V8's old generation, where only a full collection
 * frees it; a copy dropped right after the store wrote it dies young and cheaply.
 */
const KEEP_JSON_CHARS = 16 * 1024;

export function eventJson(event: StreamEvent): string {
  let json = cache.get(event);
  if (json === undefined) {
    json = JSON.stringify(event);
    cache.set(event, json);
  }
  return json;
}

/** The store has the event: a large one's JSON is let go (its size stays known). */
export function stored(event: StreamEvent): void {
  const json = cache.get(event);
  if (json === undefined || json.length < KEEP_JSON_CHARS) return;
  cache.delete(event);
  sizes.set(event, json.length);
}

/** A store that parsed `event` from `bytes` of JSON says so, so nobody serializes it again to size it. */
export function noteEventBytes(event: StreamEvent, bytes: number): void {
  sizes.set(event, bytes);
}

/** What holding the event costs a stream, in bytes: its JSON's length (UTF-16 code units, near enough). */
export function eventBytes(event: StreamEvent): number {
  return cache.get(event)?.length ?? sizes.get(event) ?? eventJson(event).length;
}
