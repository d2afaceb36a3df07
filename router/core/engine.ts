import { randomUUID } from "node:crypto";
import type { Logger } from "pino";
import { TaskError } from "./errors.js";
import type { AgentConnector } from "./agent.js";
import type { AgentDirectory } from "./agent-directory.js";
import { CommitQueue } from "./commit-queue.js";
import {
  agentText,
  isTerminal,
  TASK_STATES,
  TEXT_KIND_KEY,
  TURN_END_STATES,
  type StatusUpdate,
  type AgentUpdate,
  type DialectName,
  type LoggedEvent,
  type SendRequest,
  type Task,
  type TaskStatus,
} from "./model.js";
import type { TaskStore } from "./store.js";
import { SharedLog } from "./shared-log.js";
import { CLOSED, OVERFLOW, Subscriber } from "./subscriber.js";
import { applyArtifact, withTimestamp } from "./task-state.js";

/** Hooks for metrics and push notifications; all optional, all called after the fact. */
export interface EngineObserver {
  taskStarted?(task: Task): void;
  turnEnded?(task: Task, durationMs: number): void;
  eventsCommitted?(events: LoggedEvent[]): void;
}

export interface EngineOptions {
  store: TaskStore;
  agents: AgentDirectory;
  logger: Logger;
  /** A turn that has not ended after this long is failed. */
  taskTimeoutMs: number;
  /** Events a live stream may hold before it falls back to reading the log (a guard; bytes are the bound). */
  subscriberCapacity?: number;
  /**
   * Bytes (events' JSON) a live stream may hold before it falls back to reading the log, and the most a page
   * read from the log holds (CONTRACT 12 `limits.streamBufferBytes`).
   */
  streamBufferBytes?: number;
  /** Uncommitted events above which the engine waits for the store before reading the agent further. */
  maxPendingEvents?: number;
  /** Events read from the log per page when a stream catches up. */
  logPageSize?: number;
  observer?: EngineObserver;
}

/**
 * The event-count guard is far above what one store commit fans out (thousands of small events per tick on a
 * fast agent): a lower one made fast streams overflow every tick and re-read, re-parse and re-render each
 * event from the log. Memory is bounded by streamBufferBytes instead.
 */
const DEFAULTS = { subscriberCapacity: 65_536, streamBufferBytes: 1_048_576, maxPendingEvents: 10_000, logPageSize: 256 };
/** How long tasks/cancel waits for the agent to take the cancel before ending the task itself. */
const CANCEL_GRACE_MS = 2000;
/** How long shutdown waits for agents to take the cancels of the turns it failed. */
const SHUTDOWN_CANCEL_MS = 1000;

/** A task with a turn in progress (or just ended, until its final event is committed). */
interface LiveTask {
  task: Task;
  agent: AgentConnector;
  committedSeq: number;
  subscribers: Set<Subscriber>;
  controller: AbortController;
  turnEnded: boolean;
  /** The seq after which this turn's events are logged (the previous turn's final event, or 0). */
  turnFromSeq: number;
  /** tasks/cancel is telling the agent: a turn that now ends without a final status was canceled. */
  canceling?: boolean;
  startedAt: number;
  timer?: NodeJS.Timeout;
  /** Resolved once the turn's final event is committed and fanned out. */
  done: Promise<void>;
  finish: () => void;
}

/**
 * The transport-free heart of the router: creates tasks, runs agent turns, appends every agent update to
 * the task's ordered log (durably, batched per tick), and fans committed events out to live streams.
 */
/**
 * An agent's status as the log may hold it: an unknown state, or a "final" status in a state that does not
 * end a turn (which would leave the task working forever), becomes a failure that says what the agent sent.
 */
function checkedStatus(update: StatusUpdate, agentId: string): StatusUpdate {
  const { state } = update.status;
  if (!TASK_STATES.has(state)) {
    return { ...update, status: { state: "failed", message: agentText(`Agent ${agentId} reported an unknown task state "${String(state)}".`) }, final: true };
  }
  if (update.final === true && !TURN_END_STATES.has(state)) {
    return { ...update, status: { state: "failed", message: agentText(`Agent ${agentId} ended its turn in state "${state}".`) }, final: true };
  }
  return update;
}

function isTurnEnd(event: LoggedEvent): boolean {
  return event.kind === "status" && event.final;
}

export class TaskEngine {
  #opts: EngineOptions & typeof DEFAULTS;
  #live = new Map<string, LiveTask>();
  #commits: CommitQueue;
  #log: Logger;
  #closing = false;
  #fallbacks = 0;
  /** Log pages for streams catching up, shared by streams that read the same events (see SharedLog). */
  #pages: SharedLog;
  /** Task ids whose turn is being set up (between the request and the task's first store write). */
  #starting = new Set<string>();

  constructor(options: EngineOptions) {
    this.#opts = { ...DEFAULTS, ...options };
    this.#log = options.logger;
    this.#commits = new CommitQueue(options.store, (events) => this.#fanOut(events), options.logger);
    this.#pages = new SharedLog(options.store);
  }

  get store(): TaskStore {
    return this.#opts.store;
  }

  /** Live tasks and buffered stream events, for metrics. */
  stats(): { liveTasks: number; streams: number; bufferedEvents: number; pendingCommits: number; logFallbacks: number } {
    let streams = 0;
    let bufferedEvents = 0;
    for (const live of this.#live.values()) {
      streams += live.subscribers.size;
      for (const s of live.subscribers) bufferedEvents += s.depth;
    }
    return { liveTasks: this.#live.size, streams, bufferedEvents, pendingCommits: this.#commits.pending, logFallbacks: this.#fallbacks };
  }

  /**
   * Fails every task a previous run left unfinished, with a message that says so, so none hangs in
   * `working` forever. Call once before serving.
   */
  async recover(): Promise<number> {
    const unfinished = await this.#opts.store.listUnfinishedTasks();
    const stuck = unfinished.filter((t) => !TURN_END_STATES.has(t.status.state));
    for (const task of stuck) {
      const now = new Date().toISOString();
      const status: TaskStatus = {
        state: "failed",
        message: agentText("The router restarted while this task was in flight; the task was failed."),
        timestamp: now,
      };
      task.lastSeq += 1;
      task.status = status;
      task.updatedAt = now;
      this.#commits.add(task, { kind: "status", status, final: true, taskId: task.id, contextId: task.contextId, seq: task.lastSeq });
    }
    await this.#commits.flushed();
    if (stuck.length) this.#log.warn({ tasks: stuck.length }, "failed tasks left in flight by the previous run");
    return stuck.length;
  }

  getTask(taskId: string): Promise<Task | undefined> {
    return this.#opts.store.getTask(taskId);
  }

  /**
   * Starts a turn: a new task, or the next turn of a task waiting for input. Resolves once the task is
   * stored, with the seq after which this turn's events will be logged.
   */
  async startTurn(req: SendRequest, dialect: DialectName, agent: AgentConnector): Promise<{ task: Task; fromSeq: number }> {
    if (this.#closing) throw TaskError.shuttingDown();
    if (req.taskId !== undefined) {
      // Claim the id before the first await: concurrent sends with one id must not start two turns.
      if (this.#starting.has(req.taskId)) throw TaskError.invalidParams(`task ${req.taskId} is being started by another request`, "id");
      this.#starting.add(req.taskId);
      try {
        return await this.#startTurn(req, dialect, agent);
      } finally {
        this.#starting.delete(req.taskId);
      }
    }
    return this.#startTurn(req, dialect, agent);
  }

  async #startTurn(req: SendRequest, dialect: DialectName, agent: AgentConnector): Promise<{ task: Task; fromSeq: number }> {
    const now = new Date().toISOString();
    let task: Task;
    const existing = req.taskId ? (this.#live.get(req.taskId)?.task ?? (await this.#opts.store.getTask(req.taskId))) : undefined;
    if (existing) {
      if (this.#live.has(existing.id) || !TURN_END_STATES.has(existing.status.state)) {
        throw TaskError.invalidParams(`task ${existing.id} is still running a turn; wait for it or cancel it`, "id");
      }
      if (isTerminal(existing.status.state)) {
        // A finished task cannot be restarted (A2A v1.0 3.1: UnsupportedOperationError), in every dialect.
        throw TaskError.unsupportedOperation(`task ${existing.id} is already ${existing.status.state}; send with a new id`, {
          taskId: existing.id,
          state: existing.status.state,
        });
      }
      const owner = this.#opts.agents.find(existing.agentId);
      if (!owner) throw TaskError.unknownAgent(existing.agentId);
      agent = owner;
      if (!agent.isOnline()) throw TaskError.agentUnavailable(agent.info.id);
      task = existing;
      task.status = { state: "submitted", timestamp: now };
      task.history.push(req.message);
      task.metadata = { ...task.metadata, ...req.metadata };
      task.updatedAt = now;
    } else {
      task = {
        id: req.taskId ?? randomUUID(),
        contextId: req.contextId ?? randomUUID(),
        agentId: agent.info.id,
        dialect,
        status: { state: "submitted", timestamp: now },
        artifacts: [],
        history: [req.message],
        metadata: { ...req.metadata },
        createdAt: now,
        updatedAt: now,
        lastSeq: 0,
      };
    }
    req.message.taskId ??= task.id;
    req.message.contextId ??= task.contextId;
    let finish!: () => void;
    const done = new Promise<void>((resolve) => (finish = resolve));
    const live: LiveTask = {
      task,
      agent,
      committedSeq: task.lastSeq,
      subscribers: new Set(),
      controller: new AbortController(),
      turnEnded: false,
      turnFromSeq: task.lastSeq,
      startedAt: Date.now(),
      done,
      finish,
    };
    this.#live.set(task.id, live);
    this.#commits.add(task);
    await this.#commits.flushed();
    this.#opts.observer?.taskStarted?.(task);
    this.#log.info({ task: task.id, agent: agent.info.id, context: task.contextId }, "task turn started");
    void this.#run(live, req);
    return { task: structuredClone(task), fromSeq: task.lastSeq };
  }

  /**
   * The task once the turn that logs its events after `fromSeq` has ended and its final event is durable:
   * what a blocking send answers with. Waits on the turn itself, reading nothing from the log.
   */
  async turnResult(taskId: string, fromSeq: number): Promise<Task | undefined> {
    const live = this.#live.get(taskId);
    if (live && live.turnFromSeq === fromSeq) await live.done;
    return this.#opts.store.getTask(taskId);
  }

  /** Cancels a task: tells the agent, ends the task `canceled`. */
  async cancel(taskId: string): Promise<Task> {
    const live = this.#live.get(taskId);
    if (!live || live.turnEnded) {
      const task = live?.task ?? (await this.#opts.store.getTask(taskId));
      if (!task) throw TaskError.taskNotFound(taskId);
      if (isTerminal(task.status.state) || live?.turnEnded) throw TaskError.taskNotCancelable(taskId, task.status.state);
      // Waiting for input: no agent is working on it, so the router ends it itself.
      task.lastSeq += 1;
      const status: TaskStatus = { state: "canceled", message: agentText("Canceled by the client."), timestamp: new Date().toISOString() };
      task.status = status;
      task.updatedAt = status.timestamp!;
      this.#commits.add(task, { kind: "status", status, final: true, taskId, contextId: task.contextId, seq: task.lastSeq });
      await this.#commits.flushed();
      return structuredClone(task);
    }
    // Tell the agent before cutting its stream (an upstream A2A server cancels its executor only on an
    // explicit cancel, not on a dropped connection), but never let a slow agent hold the client up.
    live.canceling = true;
    if (live.agent.cancel) {
      const told = live.agent.cancel(taskId).catch((err) => this.#log.warn({ err, task: taskId }, "agent cancel failed"));
      await settledOrAfter(told, CANCEL_GRACE_MS);
    }
    if (live.turnEnded && live.task.status.state !== "canceled") {
      throw TaskError.taskNotCancelable(taskId, live.task.status.state);
    }
    if (!live.turnEnded) this.#endTurn(live, "canceled", "Canceled by the client.");
    await this.#commits.flushed();
    return structuredClone(live.task);
  }

  /**
   * The task's events with seq > afterSeq, in order, first from the log and then live. It ends after a
   * turn-ending event that nothing follows: a replay of a multi-turn task goes on through its later turns,
   * a live stream ends with its turn. A reader that falls behind transparently switches back to the log.
   */
  async *events(taskId: string, afterSeq: number, signal?: AbortSignal): AsyncGenerator<LoggedEvent> {
    for await (const batch of this.eventBatches(taskId, afterSeq, signal)) yield* batch;
  }

  /**
   * `events` in batches, for transports: a page of the log (at most logPageSize events and about
   * streamBufferBytes bytes), or what one live stream collected since it last took. A stream writes a
   * batch in one go: per-event awaits and socket writes were most of a fast relay's cost.
   */
  async *eventBatches(taskId: string, afterSeq: number, signal?: AbortSignal): AsyncGenerator<LoggedEvent[]> {
    let cursor = afterSeq;
    const { store } = this.#opts;
    for (;;) {
      if (signal?.aborted) return;
      // Pages are bounded in bytes as well as in events, so catching up on large events holds no more than
      // a live stream may (CONTRACT 12).
      const page = await this.#pages.read(taskId, cursor, this.#opts.logPageSize, this.#heldBytes());
      // A log must go cursor+1, cursor+2, ...: anything else (a store written by two routers) would repeat
      // or loop forever, so it ends the stream loudly instead.
      for (let i = 0; i < page.length; i++) {
        const event = page[i]!;
        if (event.seq !== (i === 0 ? cursor : page[i - 1]!.seq) + 1) {
          if (i > 0) yield page.slice(0, i);
          this.#log.error({ task: taskId, after: i === 0 ? cursor : page[i - 1]!.seq, got: event.seq }, "task log is not contiguous; ending the stream");
          return;
        }
      }
      if (page.length > 0) {
        yield page;
        const last = page[page.length - 1]!;
        cursor = last.seq;
        if (isTurnEnd(last) && !(await this.#continuesAfter(taskId, last.seq))) return;
        // A page may be short because of its byte bound, not because the log ended: read on until empty.
        continue;
      }
      const live = this.#live.get(taskId);
      if (!live) {
        // The turn may have ended (and left #live) while we read: its final event is in the log then.
        if ((await store.readEvents(taskId, cursor, 1)).length > 0) continue;
        return;
      }
      if (live.committedSeq !== cursor) continue;
      const sub = new Subscriber(this.#opts.subscriberCapacity, this.#heldBytes());
      live.subscribers.add(sub);
      try {
        for (;;) {
          const got = await sub.take(signal);
          if (got === CLOSED) return;
          if (got === OVERFLOW) {
            this.#fallbacks++;
            break;
          }
          const end = got.findIndex(isTurnEnd);
          if (end >= 0) {
            yield end === got.length - 1 ? got : got.slice(0, end + 1);
            return;
          }
          yield got;
          cursor = got[got.length - 1]!.seq;
        }
      } finally {
        live.subscribers.delete(sub);
      }
    }
  }

  /**
   * The bytes of events a stream may hold at once: half its budget, because while a stream writes an event
   * it holds it twice, parsed and rendered for its socket (CONTRACT 12 bounds the total).
   */
  #heldBytes(): number {
    return Math.max(1, Math.floor(this.#opts.streamBufferBytes / 2));
  }

  /** Whether anything follows a turn-ending event: a later logged event, or a turn that has started since. */
  async #continuesAfter(taskId: string, seq: number): Promise<boolean> {
    const live = this.#live.get(taskId);
    if (live && live.turnFromSeq >= seq) return true;
    return (await this.#opts.store.readEvents(taskId, seq, 1)).length > 0;
  }

  /**
   * Stops taking new turns and fails the ones in progress (the log says why), then tells their agents to
   * stop (hub `task.cancel`, upstream `tasks/cancel`), waiting for that at most SHUTDOWN_CANCEL_MS.
   */
  async close(): Promise<void> {
    this.#closing = true;
    const told: Promise<void>[] = [];
    for (const live of this.#live.values()) {
      if (live.turnEnded) continue;
      this.#endTurn(live, "failed", "The router shut down while this task was in flight.");
      const { agent, task } = live;
      if (agent.cancel) told.push(agent.cancel(task.id).catch((err) => this.#log.warn({ err, task: task.id }, "agent cancel at shutdown failed")));
    }
    await settledOrAfter(Promise.all(told), SHUTDOWN_CANCEL_MS);
    await this.#commits.flushed();
  }

  async #run(live: LiveTask, req: SendRequest): Promise<void> {
    const { task, agent } = live;
    live.timer = setTimeout(() => {
      if (live.turnEnded) return;
      this.#endTurn(live, "failed", `Task timed out after ${this.#opts.taskTimeoutMs} ms.`);
      // The agent may still be working: tell it to stop, as tasks/cancel would.
      agent.cancel?.(task.id).catch((err) => this.#log.warn({ err, task: task.id }, "agent cancel after timeout failed"));
    }, this.#opts.taskTimeoutMs);
    live.timer.unref();
    // A follow-up turn that does not name a skill goes to the skill the task started with.
    const named = req.metadata.skill ?? task.metadata.skill;
    const skill = typeof named === "string" ? named : agent.info.skills[0]?.id;
    try {
      const updates = agent.execute({
        task: structuredClone(task),
        message: req.message,
        skill,
        metadata: req.metadata,
        signal: live.controller.signal,
        flushed: () => this.#commits.flushed(),
      });
      for await (const update of updates) {
        if (live.turnEnded) break;
        this.#append(live, update);
        if (live.turnEnded) break;
        if (this.#commits.pending > this.#opts.maxPendingEvents) await this.#commits.flushed();
      }
      if (!live.turnEnded) {
        if (live.canceling) this.#endTurn(live, "canceled", "Canceled by the client.");
        else this.#endTurn(live, "failed", `Agent ${agent.info.id} ended its turn without a final status.`);
      }
    } catch (err) {
      if (!live.turnEnded && live.canceling) this.#endTurn(live, "canceled", "Canceled by the client.");
      else if (!live.turnEnded) {
        const reason = err instanceof Error ? err.message : String(err);
        this.#endTurn(live, "failed", reason);
      }
    } finally {
      clearTimeout(live.timer);
      live.controller.abort();
    }
  }

  /** Ends a turn with a status of the router's own (cancel, timeout, a dropped or broken agent). */
  #endTurn(live: LiveTask, state: "failed" | "canceled", text: string): void {
    this.#append(live, { kind: "status", status: { state, message: agentText(text) }, final: true, metadata: { [TEXT_KIND_KEY]: "snapshot" } });
    live.controller.abort();
  }

  #append(live: LiveTask, update: AgentUpdate): void {
    const { task } = live;
    const now = new Date().toISOString();
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
    this.#commits.add(task, event);
    if (live.turnEnded) {
      clearTimeout(live.timer);
      const duration = Date.now() - live.startedAt;
      this.#log.info({ task: task.id, agent: live.agent.info.id, state: task.status.state, durationMs: duration, events: seq }, "task turn ended");
      this.#opts.observer?.turnEnded?.(task, duration);
    }
  }

  #fanOut(events: LoggedEvent[]): void {
    for (const event of events) {
      const live = this.#live.get(event.taskId);
      if (!live) continue;
      live.committedSeq = event.seq;
      for (const sub of live.subscribers) sub.push(event);
      if (event.kind === "status" && event.final && live.turnEnded && live.task.lastSeq === event.seq) {
        this.#live.delete(event.taskId);
        live.finish();
      }
    }
    this.#opts.observer?.eventsCommitted?.(events);
  }
}

/** Waits for `p` (which must not reject), but no longer than `ms`. */
async function settledOrAfter(p: Promise<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([p, new Promise<void>((r) => (timer = setTimeout(r, ms)))]);
  clearTimeout(timer);
}
