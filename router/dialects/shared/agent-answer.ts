import { TaskError } from "../../core/errors.js";
import { MESSAGE_ANSWER_KEY, REJECTION_KEY, textOf, type Message, type Task } from "../../core/model.js";

/**
 * What a blocking send answers with when the agent answered its turn without a task of its own (hub protocol
 * 2): a bare Message, or a rejection of the request. The task is kept and readable either way.
 */

/** The agent's bare Message, when it answered the task's turn with one (MESSAGE_ANSWER_KEY). */
export function messageAnswerOf(task: Task): Message | undefined {
  if (task.metadata[MESSAGE_ANSWER_KEY] !== true || task.status.state !== "completed") return undefined;
  return task.status.message;
}

/**
 * Throws the agent's rejection of the request (REJECTION_KEY) as the send's error: the client is told the
 * request was refused, with the agent's reason, rather than handed a task. Every dialect's send does this.
 */
export function throwIfRejected(task: Task): void {
  if (task.metadata[REJECTION_KEY] !== true || task.status.state !== "rejected") return;
  const reason = textOf(task.status.message) || "no reason given";
  throw TaskError.invalidParams(`agent ${task.agentId} rejected the request: ${reason}`, "message", { taskId: task.id });
}
