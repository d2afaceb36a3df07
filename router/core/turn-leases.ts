import type { Logger } from "pino";
import type { EngineCluster } from "./cluster.js";
import type { CommitQueue } from "./commit-queue.js";
import type { LiveTask } from "./engine-types.js";
import { agentText, TEXT_KIND_KEY, TURN_END_STATES, type LoggedEvent, type Task, type TaskStatus } from "./model.js";
import type { TaskStore } from "./store.js";
import { lostInstanceText } from "./turn-rules.js";

/** What TurnLeases acts on in its engine. */
export interface TurnLeasesHost {
  store: TaskStore;
  commits: CommitQueue;
  log: Logger;
  /** The engine's turns in progress: a turn stopped unwritten is removed here. */
  live: Map<string, LiveTask>;
  cluster?: EngineCluster;
}

/**
 * Turns no agent of this instance ends: the router's own final statuses (a cancel with no agent working, the
 * turn of a lost instance), and the turns this instance must stop because its cluster lease is gone.
 */
export class TurnLeases {
  #host: TurnLeasesHost;

  constructor(host: TurnLeasesHost) {
    this.#host = host;
  }

  /**
   * Cluster mode: takes the turn lease of a task whose instance was lost (or that no instance holds) and ends
   * the turn `failed`, saying what was lost. Throws a TaskError when a live instance holds the turn. Resolves
   * true when this call ended a turn.
   */
  async adoptOrphan(taskId: string): Promise<boolean> {
    const { cluster, store, live } = this.#host;
    if (!cluster || live.has(taskId)) return false;
    const lease = await cluster.beginTurn(taskId);
    const task = await store.getTask(taskId);
    if (!task || TURN_END_STATES.has(task.status.state)) {
      await cluster.abandonTurn(taskId, lease.token);
      return false;
    }
    const why = lease.lostOwner ? lostInstanceText(lease.lostOwner) : "The router restarted while this task was in flight; the task was failed.";
    await this.writeOwnFinal(task, "failed", why, lease.token);
    this.#host.log.warn({ task: taskId, lost: lease.lostOwner }, "ended the turn of a lost router instance");
    return true;
  }

  /**
   * Cluster mode: this instance lost its lease, so the store refuses its writes: stops every turn at once,
   * without writing, and tells the agents to stop (the instances that take the turns over end them).
   */
  lost(reason: string): void {
    for (const live of [...this.#host.live.values()]) this.#stopUnwritten(live, reason);
  }

  /**
   * Appends a final status of the router's own to a task no turn of this instance is running, durably.
   * Writes a terminal status of the router's own; false when the store could not take it.
   */
  async writeOwnFinal(task: Task, state: "failed" | "canceled", text: string, lease: string | undefined): Promise<boolean> {
    const { commits } = this.#host;
    const status: TaskStatus = { state, message: agentText(text), timestamp: new Date().toISOString() };
    task.lastSeq += 1;
    task.status = status;
    task.updatedAt = status.timestamp!;
    const event: LoggedEvent = {
      kind: "status",
      status,
      final: true,
      taskId: task.id,
      contextId: task.contextId,
      seq: task.lastSeq,
      metadata: { [TEXT_KIND_KEY]: "snapshot" },
    };
    commits.add(task, event);
    const stored = await commits.flushed(task.id);
    if (lease !== undefined) this.#host.cluster?.endTurn(task.id, lease);
    return stored;
  }

  /**
   * A turn lease taken from a lost instance: its turn, if still open, is failed before anything else (the
   * send that took the lease is then refused: the task is failed).
   */
  async failLostTurn(taskId: string, lostOwner: string): Promise<void> {
    const task = await this.#host.store.getTask(taskId);
    if (!task || TURN_END_STATES.has(task.status.state)) return;
    await this.writeOwnFinal(task, "failed", lostInstanceText(lostOwner), undefined);
  }

  /** The store fenced these tasks' writes (their turn lease is gone): their turns stop here, unwritten. */
  fenced(taskIds: string[]): void {
    for (const id of taskIds) {
      const live = this.#host.live.get(id);
      if (live) this.#stopUnwritten(live, "its cluster turn lease was taken over");
    }
  }

  /**
   * Stops a turn whose lease is lost without writing anything: the agent is told to stop, streams here go
   * back to the log (where the instance that took the turn over writes its end), waiters are released.
   */
  #stopUnwritten(live: LiveTask, reason: string): void {
    const { log, commits } = this.#host;
    if (this.#host.live.get(live.task.id) !== live) return;
    this.#host.live.delete(live.task.id);
    live.turnEnded = true;
    clearTimeout(live.timer);
    live.controller.abort();
    for (const sub of live.subscribers) sub.fallBack();
    live.finish();
    const { agent, task, lease } = live;
    log.error({ task: task.id, agent: agent.info.id, reason }, "turn stopped: this instance may no longer write it");
    agent.cancel?.(task.id).catch((err) => log.warn({ err, task: task.id }, "agent cancel failed"));
    if (lease !== undefined) void commits.flushed().then(() => this.#host.cluster?.endTurn(task.id, lease));
  }
}
