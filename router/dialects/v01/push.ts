import type { LoggedEvent, Task } from "../../core/model.js";
import { PLAIN_JSON, type PushBody } from "../shared/push-body.js";
import { eventToV01 } from "./wire.js";

/**
 * What a webhook of a v0.1 task receives: the update itself as a v0.1 stream event
 * (TaskStatusUpdateEvent / TaskArtifactUpdateEvent), the seeds having no payload of their own.
 */
export function v01PushBody(event: LoggedEvent, _task?: Task): PushBody {
  return { body: JSON.stringify(eventToV01(event)), contentType: PLAIN_JSON };
}
