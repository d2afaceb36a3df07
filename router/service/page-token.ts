/**
 * The wire form of a task listing's cursor (v1.0 ListTasks `pageToken` / `nextPageToken`): base64url of the
 * JSON `[updatedAt, id]` of the page's last task. Opaque to clients; the stores read it as a TaskCursor.
 */
import type { TaskCursor } from "../core/store.js";
import { TaskError } from "../core/errors.js";

/** The token of a page that ends with this task. */
export function encodePageToken(last: TaskCursor): string {
  return Buffer.from(JSON.stringify([last.updatedAt, last.id])).toString("base64url");
}

/**
 * The cursor a token names. Anything this module did not write (bad base64url, other JSON, an unparsable
 * time) is -32602 with `data.field: "pageToken"`.
 */
export function decodePageToken(token: string): TaskCursor {
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(token, "base64url").toString("utf8"));
  } catch {
    value = undefined;
  }
  if (Array.isArray(value) && value.length === 2) {
    const [updatedAt, id] = value as unknown[];
    if (typeof updatedAt === "string" && typeof id === "string" && !Number.isNaN(Date.parse(updatedAt))) {
      const cursor = { updatedAt, id };
      // Buffer's base64url decoder skips characters it does not know: only the exact encoding is accepted.
      if (encodePageToken(cursor) === token) return cursor;
    }
  }
  throw TaskError.invalidParams("pageToken is not a token this server issued", "pageToken");
}
