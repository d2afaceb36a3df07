import type { LoggedEvent, PushNotificationConfig, Task } from "../core/model.js";
import { pushPayload, type PushBody } from "../dialects/index.js";

export { A2A_JSON, PLAIN_JSON, type PushBody } from "../dialects/index.js";
/** The v0.3 spec's (and @a2a-js/sdk's) header for a config's `token`. */
export const TOKEN_HEADER = "X-A2A-Notification-Token";

/**
 * What a webhook receives for one task update, in the dialect the task was created in (each dialect
 * folder's push.ts writes it). `task` is the current snapshot (the v0.3 body).
 */
export function pushBody(event: LoggedEvent, task: Task): PushBody {
  return pushPayload(event, task);
}

/**
 * The config's credentials as headers: `authentication` (first scheme + credentials) as `Authorization`;
 * `token` in X-A2A-Notification-Token, and also as a Bearer `Authorization` when `authentication` did not
 * claim that header, since that is where most webhook receivers look for "its token".
 */
export function pushHeaders(config: PushNotificationConfig): Record<string, string> {
  const headers: Record<string, string> = {};
  const scheme = config.authentication?.schemes[0];
  if (scheme && config.authentication?.credentials) {
    headers.Authorization = `${scheme} ${config.authentication.credentials}`;
  }
  if (config.token) {
    headers[TOKEN_HEADER] = config.token;
    headers.Authorization ??= `Bearer ${config.token}`;
  }
  return headers;
}
