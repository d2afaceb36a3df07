import {
  agentText,
  TASK_STATES,
  TEXT_KIND_KEY,
  TURN_END_STATES,
  type LoggedEvent,
  type StatusUpdate,
  type StreamEvent,
  type Task,
  type TaskStatus,
} from "./model.js";

/** JavaScript's own error types: thrown by bugs, not by a connector that means to report a failure. */
const BUG_ERRORS = [TypeError, ReferenceError, RangeError, SyntaxError, EvalError, URIError];

/**
 * An agent's status as the log may hold it: an unknown state, or a "final" status in a state that does not
 * end a turn (which would leave the task working forever), becomes a failure that says what the agent sent.
 */
export function checkedStatus(update: StatusUpdate, agentId: string): StatusUpdate {
  const { state } = update.status;
  if (!TASK_STATES.has(state)) {
    return { ...update, status: { state: "failed", message: agentText(`Agent ${agentId} reported an unknown task state "${String(state)}".`) }, final: true };
  }
  if (update.final === true && !TURN_END_STATES.has(state)) {
    return { ...update, status: { state: "failed", message: agentText(`Agent ${agentId} ended its turn in state "${state}".`) }, final: true };
  }
  return update;
}

export function isTurnEnd(event: LoggedEvent): boolean {
  return event.kind === "status" && event.final;
}

/** Whether an error a turn threw is a bug (a JavaScript error type, or not an Error at all), not a connector's report. */
export function isBugError(err: unknown): boolean {
  return !(err instanceof Error) || BUG_ERRORS.some((type) => err instanceof type);
}

/** The final message of a turn whose router instance was lost. */
export function lostInstanceText(instance: string): string {
  return `Router instance ${instance}, which was running this task, was lost (its cluster lease expired); the task was failed.`;
}

/** The final status of a task failed because its updates could not be stored, as a stream event (no seq). */
export function unstoredFailure(task: Task, status: TaskStatus): StreamEvent {
  return { kind: "status", status, final: true, taskId: task.id, contextId: task.contextId, metadata: { [TEXT_KIND_KEY]: "snapshot" } };
}

/** Waits for `p` (which must not reject), but no longer than `ms`. */
export async function settledOrAfter(p: Promise<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([p, new Promise<void>((r) => (timer = setTimeout(r, ms)))]);
  clearTimeout(timer);
}
