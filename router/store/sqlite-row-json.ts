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
 * Marks a row whose task's last history message is its status message, left out of the row's history and put
 * back when the row is read (`parseTaskRow`). A turn that ends with a message puts it in both places
 * (router/core/turn-runner.ts): a large answer was written, and held by SQLite while it wrote, twice.
 */
const STATUS_IN_HISTORY = "$statusInHistory";

/**
 * A task row's JSON: a large task's (one that was large at its last commit, or whose batch carries a large
 * event of it, which its status or history then holds) as bytes made in pieces, its status message once;
 * any other a string (V8's own stringify, the fastest for small JSON).
 */
export function taskRowJson(task: Task, largeEvent: boolean): RowJson {
  if (largeEvent || LARGE_TASKS.has(task)) {
    const bytes = jsonUtf8(rowForm(task));
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

/** A task as a row holds it: a large task's status message once (STATUS_IN_HISTORY), else the task itself. */
function rowForm(task: Task): object {
  const last = task.history.at(-1);
  const message = task.status.message;
  if (!last || !message || !sameJson(last, historyEntry(task, message))) return task;
  return { ...task, history: task.history.slice(0, -1), [STATUS_IN_HISTORY]: true };
}

/** The history entry a turn's final status message becomes (router/core/turn-runner.ts). */
function historyEntry(task: Task, message: object): object {
  return { ...message, taskId: task.id, contextId: task.contextId };
}

/** A task row's JSON as the task: the status message put back at the end of its history when the row left it out. */
export function parseTaskRow(json: string): Task {
  const row = JSON.parse(json) as Task & { [STATUS_IN_HISTORY]?: true };
  if (row[STATUS_IN_HISTORY] !== true) return row;
  delete row[STATUS_IN_HISTORY];
  if (row.status.message) row.history.push(historyEntry(row, row.status.message) as Task["history"][number]);
  return row;
}

/**
 * Whether two values serialize to the same JSON, keys in the same order (so the history entry put back reads
 * as the one left out). Strings compare by content: a large text shared by both is one comparison of a
 * pointer. Anything JSON would drop or change (undefined, a NaN, an object with its own toJSON) counts as
 * different: the row keeps both.
 */
function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return typeof a !== "number" || Number.isFinite(a);
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b) || "toJSON" in a || "toJSON" in b) return false;
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  if (ka.length !== kb.length) return false;
  for (let i = 0; i < ka.length; i++) {
    const k = ka[i]!;
    if (k !== kb[i] || !sameJson((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k])) return false;
  }
  return true;
}
