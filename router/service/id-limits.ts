/**
 * How long an id a client chooses may be. Ids are stored, indexed and sent back in every event of a task, so
 * an unbounded one is a cheap way to make the router store and stream much more than was asked (a 10 MB
 * task id passes the body limit). Generated ids are UUIDs (36 characters); 256 leaves room for any scheme of
 * a client's own (prefixes, hashes, composite keys).
 */
import { TaskError } from "../core/errors.js";
import type { PushNotificationConfig, SendRequest } from "../core/model.js";
import type { IdFields } from "./dialect-policy.js";

/** The longest id (task, context, message, push config) a client may choose, in UTF-16 code units. */
export const MAX_ID_CHARS = 256;

/** Throws invalid params naming `field` when `value` is longer than MAX_ID_CHARS. */
function checkIdLength(value: string | undefined, field: string): void {
  if (value !== undefined && value.length > MAX_ID_CHARS) {
    throw TaskError.invalidParams(`${field} is longer than ${MAX_ID_CHARS} characters (${value.length})`, field);
  }
}

/** Checks every id a send names, before anything is read or stored; `fields`: the request dialect's names. */
export function checkSendIds(req: SendRequest, fields: IdFields): void {
  checkIdLength(req.taskId, fields.taskId);
  checkIdLength(req.contextId, fields.contextId);
  checkIdLength(req.message.messageId, fields.messageId);
  checkIdLength(req.pushNotification?.id, fields.pushId);
}

/** Checks the id of a push config set on its own. */
export function checkPushConfigId(config: PushNotificationConfig, fields: IdFields): void {
  checkIdLength(config.id, fields.pushSetId);
}
