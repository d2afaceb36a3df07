import type { LoggedEvent, Task } from "../../core/model.js";
import { A2A_JSON, type PushBody } from "../shared/push-body.js";
import { eventToV10 } from "./translate.js";

/** What a webhook of a v1.0 task receives: the update as a StreamResponse, `application/a2a+json` (spec 4.3.3). */
export function v10PushBody(event: LoggedEvent, _task?: Task): PushBody {
  return { body: JSON.stringify(eventToV10(event)), contentType: A2A_JSON };
}
