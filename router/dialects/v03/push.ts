import type { LoggedEvent, Task } from "../../core/model.js";
import { PLAIN_JSON, type PushBody } from "../shared/push-body.js";
import { taskToV03 } from "./translate.js";

/**
 * What a webhook of a v0.3 task receives: the Task as it stands after the update (v0.3 spec 9.5: "Task
 * object is sent as JSON payload"), without history. `task` may be newer than the event, which is
 * harmless for a snapshot.
 */
export function v03PushBody(_event: LoggedEvent, task: Task): PushBody {
  return { body: JSON.stringify(taskToV03(task, 0)), contentType: PLAIN_JSON };
}
