import type { LoggedEvent, PushNotificationConfig, Task } from "../core/model.js";
import { taskToV03 } from "../dialects/v03.js";
import { v01 } from "../dialects/v01.js";
import { eventToV10 } from "../dialects/v10.js";

/**
 * What a webhook receives for one task update, in the dialect the task was created in:
 * - v1.0: a StreamResponse (`{statusUpdate}` / `{artifactUpdate}`), `application/a2a+json` (spec 4.3.3);
 * - v0.3: the Task as it stands after the update (spec 9.5: "Task object is sent as JSON payload");
 * - v0.1: the update itself, as a v0.1 stream event (TaskStatusUpdateEvent / TaskArtifactUpdateEvent),
 *   the seeds having no payload of their own.
 */
export interface PushBody {
  body: string;
  contentType: string;
}

export const A2A_JSON = "application/a2a+json";
export const PLAIN_JSON = "application/json";
/** The v0.3 spec's (and @a2a-js/sdk's) header for a config's `token`. */
export const TOKEN_HEADER = "X-A2A-Notification-Token";

/** `task` is the current snapshot (needed for v0.3; may be newer than the event, which is harmless there). */
export function pushBody(event: LoggedEvent, task: Task): PushBody {
  switch (task.dialect) {
    case "v1.0":
      return { body: JSON.stringify(eventToV10(event)), contentType: A2A_JSON };
    case "v0.3":
      return { body: JSON.stringify(taskToV03(task, 0)), contentType: PLAIN_JSON };
    default:
      return { body: JSON.stringify(v01.renderEvent(event)), contentType: PLAIN_JSON };
  }
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
