import type { Logger } from "pino";
import { isoNow } from "./clock.js";
import { copyData } from "./data-copy.js";
import type { CommitQueue } from "./commit-queue.js";
import type { EngineObserver, LiveTask } from "./engine-types.js";
import { agentText, isTerminal, TEXT_KIND_KEY, TURN_END_STATES, type AgentUpdate, type LoggedEvent, type SendRequest } from "./model.js";
import { applyArtifact, copyOfNew, withTimestamp } from "./task-state.js";
import { checkedStatus, isBugError } from "./turn-rules.js";

/** What a TurnRunner needs of its engine. */
export interface TurnRunnerHost {
  commits: CommitQueue;
  log: Logger;
  /** A turn that has not ended after this long is failed. */
  taskTimeoutMs: number;
  /** Uncommitted events above which the runner waits for the store before reading the agent further. */
  maxPendingEvents: number;
  /**
   * Bytes of uncommitted events, besides the update just read, above which the same (a few large events are as
   * heavy as many small ones).
   */
  maxUnstoredBytes: number;
  observer?: EngineObserver;
}

/** A turn's signal once it is over: one reason for all, as building a DOMException (its stack) took ~20 µs a turn. */
const TURN_OVER = new DOMException("This operation was aborted", "AbortError");

/** Runs an agent's turn: reads its updates, appends each to the task's log, ends the turn on time. */
export class TurnRunner {
  #host: TurnRunnerHost;

  constructor(host: TurnRunnerHost) {
    this.#host = host;
  }

  /** Hands the turn to its agent and logs what it sends until the turn ends (or is ended for it). */
  async run(live: LiveTask, req: SendRequest): Promise<void> {
    const { task, agent } = live;
    live.timer = setTimeout(() => {
      if (live.turnEnded) return;
      this.endTurn(live, "failed", `Task timed out after ${this.#host.taskTimeoutMs} ms.`);
      // The agent may still be working: tell it to stop, as tasks/cancel would.
      agent.cancel?.(task.id).catch((err) => this.#host.log.warn({ err, task: task.id }, "agent cancel after timeout failed"));
    }, this.#host.taskTimeoutMs);
    live.timer.unref();
    // A follow-up turn that does not name a skill goes to the skill the task started with.
    const named = req.metadata.skill ?? task.metadata.skill;
    const skill = typeof named === "string" ? named : agent.info.skills[0]?.id;
    try {
      const updates = agent.execute({
        // The agent's own copy. A new task's (nothing logged yet) shares only what the agent is handed anyway,
        // ctx.message and ctx.metadata's values; a deep clone was ~4% of a tasks/send to the echo.
        task: task.lastSeq === 0 ? copyOfNew(task) : copyData(task),
        message: req.message,
        skill,
        metadata: req.metadata,
        signal: live.controller.signal,
        flushed: () => this.#host.commits.flushed(task.id),
      });
      live.running = true;
      const { commits } = this.#host;
      for await (const update of updates) {
        if (live.turnEnded) break;
        // What was waiting for the store before this update: the update itself does not count, so a large one
        // (a whole 10 MB answer) is not committed on its own, its task snapshot written in full, only to be
        // written again with the next update a moment later. The bound is the limit plus one update.
        const unstored = commits.unstoredBytes;
        this.#append(live, update);
        if (live.turnEnded) break;
        if (commits.pending > this.#host.maxPendingEvents || unstored > this.#host.maxUnstoredBytes) await commits.flushed(task.id);
      }
      if (!live.turnEnded) {
        if (live.canceling) this.endTurn(live, "canceled", "Canceled by the client.");
        else this.endTurn(live, "failed", `Agent ${agent.info.id} ended its turn without a final status.`);
      }
    } catch (err) {
      if (!live.turnEnded && live.canceling) this.endTurn(live, "canceled", "Canceled by the client.");
      else if (!live.turnEnded) {
        this.endTurn(live, "failed", this.#failureText(agent.info.id, live.task.id, err));
      }
    } finally {
      clearTimeout(live.timer);
      live.controller.abort(TURN_OVER);
    }
  }

  /**
   * What a client reads when an agent's turn throws. A connector's own Error says what went wrong in the
   * agent's terms ("Upstream agent x is unreachable: ..."), so it is shown; JavaScript's built-in errors
   * (TypeError, ...) are bugs, whose text ("x is not a function") is logged, never shown.
   */
  #failureText(agentId: string, taskId: string, err: unknown): string {
    if (!isBugError(err)) return (err as Error).message;
    this.#host.log.error({ err, task: taskId, agent: agentId }, "agent failed with an internal error");
    return `Agent ${agentId} failed with an internal error.`;
  }

  /** Ends a turn with a status of the router's own (cancel, timeout, a dropped or broken agent). */
  endTurn(live: LiveTask, state: "failed" | "canceled", text: string): void {
    this.#append(live, { kind: "status", status: { state, message: agentText(text) }, final: true, metadata: { [TEXT_KIND_KEY]: "snapshot" } });
    live.controller.abort();
  }

  #append(live: LiveTask, update: AgentUpdate): void {
    const { task } = live;
    const now = isoNow();
    const seq = ++task.lastSeq;
    let event: LoggedEvent;
    if (update.kind === "status") {
      update = checkedStatus(update, live.agent.info.id);
      const status = withTimestamp(update.status, now);
      const final = update.final === true || TURN_END_STATES.has(status.state);
      event = { ...update, status, final, taskId: task.id, contextId: task.contextId, seq };
      if (status.message && event.metadata?.[TEXT_KIND_KEY] === undefined) {
        // Every agent edge names its text's kind (CONTRACT 9); an agent that sent none is read the A2A way.
        event.metadata = { ...event.metadata, [TEXT_KIND_KEY]: final ? "snapshot" : "progress" };
      }
      task.status = status;
      if (final) {
        live.turnEnded = true;
        if (status.message) task.history.push({ ...status.message, taskId: task.id, contextId: task.contextId });
        if (update.metadata) task.metadata = { ...task.metadata, ...update.metadata };
      }
    } else {
      event = { ...update, taskId: task.id, contextId: task.contextId, seq };
      applyArtifact(task, update);
    }
    task.updatedAt = now;
    this.#host.commits.add(task, event);
    if (live.turnEnded) {
      clearTimeout(live.timer);
      const duration = Date.now() - live.startedAt;
      // A line per turn was ~5% of a tasks/send to the echo: turns that went as asked are in the metrics and at
      // debug; those that did not (failed, canceled, rejected) stay at info.
      const level = isTerminal(task.status.state) && task.status.state !== "completed" ? "info" : "debug";
      this.#host.log[level](
        { task: task.id, agent: live.agent.info.id, context: task.contextId, state: task.status.state, durationMs: duration, events: seq },
        "task turn ended",
      );
      this.#host.observer?.turnEnded?.(task, duration);
    }
  }
}
