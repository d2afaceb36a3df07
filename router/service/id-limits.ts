/**
 * How long an id a client chooses may be. Ids are stored, indexed and sent back in every event of a task, so
 * an unbounded one is a cheap way to make the router store and stream much more than was asked (a 10 MB
 * task id passes the body limit). Generated ids are UUIDs (36 characters); 256 leaves room for any scheme of
 * a client's own (prefixes, hashes, composite keys).
 */
import { TaskError } from "../core/errors.js";
import type { DialectName, PushNotificationConfig, SendRequest } from "../core/model.js";

/** The longest id (task, context, message, push config) a client may choose, in UTF-16 code units. */
export const MAX_ID_CHARS = 256;

/** Where each dialect's clients put the ids a send carries: the error names the field the client wrote. */
const SEND_FIELDS: Record<DialectName, { taskId: string; contextId: string; messageId: string; pushId: string }> = {
  "v0.1": { taskId: "id", contextId: "sessionId", messageId: "message.messageId", pushId: "pushNotification.id" },
  "v0.3": { taskId: "message.taskId", contextId: "message.contextId", messageId: "message.messageId", pushId: "configuration.pushNotificationConfig.id" },
  "v1.0": { taskId: "message.taskId", contextId: "message.contextId", messageId: "message.messageId", pushId: "configuration.taskPushNotificationConfig.id" },
};

/** Throws invalid params naming `field` when `value` is longer than MAX_ID_CHARS. */
export function checkIdLength(value: string | undefined, field: string): void {
  if (value !== undefined && value.length > MAX_ID_CHARS) {
    throw TaskError.invalidParams(`${field} is longer than ${MAX_ID_CHARS} characters (${value.length})`, field);
  }
}

/** Checks every id a send names, before anything is read or stored. */
export function checkSendIds(req: SendRequest, dialect: DialectName): void {
  const fields = SEND_FIELDS[dialect];
  checkIdLength(req.taskId, fields.taskId);
  checkIdLength(req.contextId, fields.contextId);
  checkIdLength(req.message.messageId, fields.messageId);
  checkIdLength(req.pushNotification?.id, fields.pushId);
}

/** Checks a push config's id as it is set on its own (every dialect calls the field the config's `id`). */
export function checkPushConfigId(config: PushNotificationConfig): void {
  checkIdLength(config.id, "pushNotificationConfig.id");
}
