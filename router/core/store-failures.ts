import type { Logger } from "pino";
import type { AbandonedWrites, CommitQueue } from "./commit-queue.js";
import type { LiveTask } from "./engine-types.js";
import { agentText, isTerminal, type LoggedEvent, type Task, type TaskStatus } from "./model.js";
import type { TaskStore } from "./store.js";
import { unstoredFailure } from "./turn-rules.js";

/** Tasks failed for want of storage whose failure is remembered in memory (oldest forgotten first). */
const MAX_UNSTORED_FAILURES = 10_000;

/** What StoreFailures acts on in its engine. */
export interface StoreFailuresHost {
  store: TaskStore;
  commits: CommitQueue;
  log: Logger;
  /** The engine's turns in progress: a failed task's turn is ended and removed here. */
  live: Map<string, LiveTask>;
}

/**
 * Tasks failed because the store refused their updates, with the failed status that tasks/get shows over the
 * stored snapshot until the failure itself is stored (the stored log ends where the store stopped).
 */
export class StoreFailures {
  #host: StoreFailuresHost;
  #unstored = new Map<string, TaskStatus>();

  constructor(host: StoreFailuresHost) {
    this.#host = host;
  }

  /** The failed status of a task failed for want of storage, until that failure is stored. */
  get(taskId: string): TaskStatus | undefined {
    return this.#unstored.get(taskId);
  }

  /**
   * The store refused a task's updates for the whole retry budget: fail the task loudly without them. Its
   * live streams get a final `failed` status that is not in the log (no seq, so no SSE id) and end; its agent
   * is told to cancel; tasks/get shows the stored snapshot with that status. Then one more try to store the
   * failure as the log's next event, so the store tells the truth after a restart too.
   */
  failed(lost: AbandonedWrites): void {
    const { taskId } = lost;
    const { log } = this.#host;
    const live = this.#host.live.get(taskId);
    if (!live && this.#unstored.has(taskId)) {
      log.error(
        { err: lost.error, task: taskId },
        "STORE FAILED again: the failure of a task could not be stored either; tasks/get reports it from memory until restart",
      );
      return;
    }
    const storedSeq = live ? live.committedSeq : (lost.events[0]?.seq ?? lost.task.lastSeq + 1) - 1;
    const status: TaskStatus = {
      state: "failed",
      message: agentText(`The router could not store this task's updates, so it failed the task; its stored log ends at event ${storedSeq}.`),
      timestamp: new Date().toISOString(),
    };
    log.error(
      { err: lost.error, task: taskId, agent: lost.task.agentId, lostEvents: lost.events.length, attempts: lost.attempts, storedSeq },
      "STORE FAILED for a task: its updates could not be stored within limits.commitRetryMs; failing the task",
    );
    if (this.#unstored.size >= MAX_UNSTORED_FAILURES) this.#unstored.delete(this.#unstored.keys().next().value!);
    this.#unstored.set(taskId, status);
    if (live) {
      const wasEnded = live.turnEnded;
      live.turnEnded = true;
      clearTimeout(live.timer);
      live.controller.abort();
      const failure = unstoredFailure(live.task, status);
      for (const sub of live.subscribers) sub.push(failure);
      this.#host.live.delete(taskId);
      live.finish();
      if (live.running && !wasEnded) {
        live.agent.cancel?.(taskId).catch((err) => log.warn({ err, task: taskId }, "agent cancel after a store failure failed"));
      }
    }
    void this.#storeFailure(taskId, status);
  }

  /** Appends the failure to what the store holds of the task; on success the store needs no correcting. */
  async #storeFailure(taskId: string, status: TaskStatus): Promise<void> {
    const { store, commits, log } = this.#host;
    let stored: Task | undefined;
    try {
      stored = await store.getTask(taskId);
    } catch (err) {
      log.error({ err, task: taskId }, "could not read a task the store failed; tasks/get reports its failure from memory");
      return;
    }
    if (!stored || isTerminal(stored.status.state)) {
      this.#unstored.delete(taskId);
      return;
    }
    stored.lastSeq += 1;
    stored.status = status;
    stored.updatedAt = status.timestamp!;
    const event: LoggedEvent = { ...unstoredFailure(stored, status), seq: stored.lastSeq };
    commits.add(stored, event);
    if (await commits.flushed(taskId)) {
      this.#unstored.delete(taskId);
      log.warn({ task: taskId, seq: stored.lastSeq }, "stored the failure of a task whose earlier updates could not be stored");
    }
  }
}
