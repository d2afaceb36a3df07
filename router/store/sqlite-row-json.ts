/**
 * The JSON of the SQLite store's rows, as the writer thread is handed it: a string for small JSON, UTF-8 bytes
 * (transferred, not copied) for large. A large row is serialized in pieces straight to its bytes
 * (core/json-pieces.ts): as one string and then encoded, a 30 MB task was 30 MB of string and 30 MB of bytes
 * at once, the string left in V8's large-object space until a full collection.
 */
import { eventBytes, eventJson, keptEventJson } from "../core/event-bytes.js";
import { jsonUtf8 } from "../core/json-pieces.js";
import type { LoggedEvent, Task } from "../core/model.js";
import type { RowJson } from "./sqlite-protocol.js";

/** JSON this long or longer goes to the writer as transferred UTF-8 bytes rather than as a string. */
export const TRANSFER_MIN_CHARS = 64 * 1024;
const ENCODER = new TextEncoder();

/** A string's UTF-8 bytes, in an ArrayBuffer of their own (transferable). */
export function utf8(json: string): Uint8Array {
  return ENCODER.encode(json);
}

/** Live tasks (the engine commits the same object again and again) whose JSON was large at their last commit. */
const LARGE_TASKS = new WeakSet<Task>();

/**
 * A task row's JSON: a large task's (one that was large at its last commit, or whose batch carries a large
 * event of it, which its status or history then holds) as bytes made in pieces; any other a string (V8's own
 * stringify, the fastest for small JSON).
 */
export function taskRowJson(task: Task, largeEvent: boolean): RowJson {
  if (largeEvent || LARGE_TASKS.has(task)) {
    const bytes = jsonUtf8(task);
    if (bytes.length < TRANSFER_MIN_CHARS) LARGE_TASKS.delete(task);
    else LARGE_TASKS.add(task);
    return bytes;
  }
  const json = JSON.stringify(task);
  if (json.length >= TRANSFER_MIN_CHARS) LARGE_TASKS.add(task);
  return json;
}

/**
 * An event row's JSON: the JSON the live streams count it by (eventJson, serialized once) for a small event; a
 * large one's is not kept (eventBytes only measures it), so it goes to bytes in pieces, like a large task's.
 * Bytes (not a string) say the event is large.
 */
export function eventRowJson(event: LoggedEvent): RowJson {
  const kept = keptEventJson(event);
  if (eventBytes(event) < TRANSFER_MIN_CHARS) return kept ?? eventJson(event);
  return kept !== undefined ? utf8(kept) : jsonUtf8(event);
}
