import type { Logger } from "pino";
import { isoNow } from "./clock.js";
import type { CommitQueue } from "./commit-queue.js";
import { agentText, type Task, type TaskStatus } from "./model.js";
import type { TaskStore } from "./store.js";
import { isTurnEnd } from "./turn-rules.js";

/**
 * Ends `failed` the tasks a previous run of this router alone left in flight, each with its final event in the
 * log, so none hangs in `working` forever; resolves once that is durable.
 */
export async function failRestarted(stuck: Task[], commits: CommitQueue, log: Logger): Promise<number> {
  for (const task of stuck) {
    const now = isoNow();
    const status: TaskStatus = {
      state: "failed",
      message: agentText("The router restarted while this task was in flight; the task was failed."),
      timestamp: now,
    };
    task.lastSeq += 1;
    task.status = status;
    task.updatedAt = now;
    commits.add(task, { kind: "status", status, final: true, taskId: task.id, contextId: task.contextId, seq: task.lastSeq });
  }
  await commits.flushed();
  if (stuck.length) log.warn({ tasks: stuck.length }, "failed tasks left in flight by the previous run");
  return stuck.length;
}

/** The seq after which a stored task's last turn logs its events, read from its log a page at a time. */
export async function lastTurnStart(store: TaskStore, task: Task, pageSize: number): Promise<number> {
  let start = 0;
  for (let cursor = 0; cursor < task.lastSeq; ) {
    const page = await store.readEvents(task.id, cursor, pageSize);
    if (page.length === 0) break;
    for (const e of page) if (isTurnEnd(e) && e.seq < task.lastSeq) start = e.seq;
    cursor = page[page.length - 1]!.seq;
  }
  return start;
}
