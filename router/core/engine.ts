import { randomUUID } from "node:crypto";
import type { Logger } from "pino";
import { TaskError } from "./errors.js";
import type { AgentConnector } from "./agent.js";
import type { AgentDirectory } from "./agent-directory.js";
import type { EngineCluster } from "./cluster.js";
import { CommitQueue, type AbandonedWrites } from "./commit-queue.js";
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
  type StreamEvent,
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
  /**
   * How long a task's updates that the store refuses are retried before the task is failed (its streams end
   * with a `failed` status that is not in the log, its agent is told to cancel). Default 30000.
   */
  commitRetryMs?: number;
  observer?: EngineObserver;
  /**
   * Routers sharing the store (router/cluster). Consulted only where another instance may be involved: a
   * turn takes a lease first (startTurn), an agent connected elsewhere gets its turn handed over, a cancel
   * of a turn running elsewhere is forwarded, a stream of a turn running elsewhere waits on its log, and the
   * turns of lost instances are ended (adoptOrphan). Absent: one process, no call is made.
   */
  cluster?: EngineCluster;
}

/**
 * The event-count guard is far above what one store commit fans out (thousands of small events per tick on a
 * fast agent): a lower one made fast streams overflow every tick and re-read, re-parse and re-render each
 * event from the log. Memory is bounded by streamBufferBytes instead.
 */
const DEFAULTS = { subscriberCapacity: 65_536, streamBufferBytes: 1_048_576, maxPendingEvents: 10_000, logPageSize: 256 };
/** JavaScript's own error types: thrown by bugs, not by a connector that means to report a failure. */
const BUG_ERRORS = [TypeError, ReferenceError, RangeError, SyntaxError, EvalError, URIError];
/** How long tasks/cancel waits for the agent to take the cancel before ending the task itself. */
const CANCEL_GRACE_MS = 2000;
/** How long shutdown waits for agents to take the cancels of the turns it failed. */
const SHUTDOWN_CANCEL_MS = 1000;
/** Tasks failed for want of storage whose failure is remembered in memory (oldest forgotten first). */
const MAX_UNSTORED_FAILURES = 10_000;

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
  /** The cluster lease token this instance writes the turn under (cluster mode). */
  lease?: string;
  /** tasks/cancel is telling the agent: a turn that now ends without a final status was canceled. */
  canceling?: boolean;
  /** The agent was handed the turn (so it is told to cancel if the turn is failed under it). */
  running?: boolean;
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
  /**
   * Tasks failed because the store refused their updates, with the failed status that tasks/get shows over the
   * stored snapshot until the failure itself is stored (the stored log ends where the store stopped).
   */
  #unstored = new Map<string, TaskStatus>();

  constructor(options: EngineOptions) {
    this.#opts = { ...DEFAULTS, ...options };
    this.#log = options.logger;
    this.#commits = new CommitQueue(options.store, {
      onCommitted: (events) => this.#fanOut(events),
      onAbandoned: (lost) => this.#storeFailed(lost),
      log: options.logger,
      onFenced: (ids) => this.#fenced(ids),
      ...(options.commitRetryMs !== undefined && { retryMs: options.commitRetryMs }),
    });
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
    if (this.#opts.cluster) {
      // Other instances' turns are theirs: only the turns of lost instances (or of no instance) are ended.
      let ended = 0;
      for (const task of stuck) if (await this.adoptOrphan(task.id).catch(() => false)) ended++;
      return ended;
    }
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

  /**
   * The task as stored. A task failed because its updates could not be stored shows its stored snapshot
   * (nothing the store does not hold) with the failed status, until that failure is stored too.
   */
  async getTask(taskId: string): Promise<Task | undefined> {
    const task = await this.#opts.store.getTask(taskId);
    const failed = this.#unstored.get(taskId);
    return task && failed ? { ...task, status: structuredClone(failed) } : task;
  }

  /**
   * Cluster mode: takes the turn lease of a task whose instance was lost (or that no instance holds) and ends
   * the turn `failed`, saying what was lost. Throws a TaskError when a live instance holds the turn. Resolves
   * true when this call ended a turn.
   */
  async adoptOrphan(taskId: string): Promise<boolean> {
    const cluster = this.#opts.cluster;
    if (!cluster || this.#live.has(taskId)) return false;
    const lease = await cluster.beginTurn(taskId);
    const task = await this.#opts.store.getTask(taskId);
    if (!task || TURN_END_STATES.has(task.status.state)) {
      await cluster.abandonTurn(taskId, lease.token);
      return false;
    }
    const why = lease.lostOwner ? lostInstanceText(lease.lostOwner) : "The router restarted while this task was in flight; the task was failed.";
    await this.#writeOwnFinal(task, "failed", why, lease.token);
    this.#log.warn({ task: taskId, lost: lease.lostOwner }, "ended the turn of a lost router instance");
    return true;
  }

  /**
   * Cluster mode: this instance lost its lease, so the store refuses its writes: stops every turn at once,
   * without writing, and tells the agents to stop (the instances that take the turns over end them).
   */
  lost(reason: string): void {
    for (const live of [...this.#live.values()]) this.#stopUnwritten(live, reason);
  }

  /** Appends a final status of the router's own to a task no turn of this instance is running, durably. */
  /** Writes a terminal status of the router's own; false when the store could not take it. */
  async #writeOwnFinal(task: Task, state: "failed" | "canceled", text: string, lease: string | undefined): Promise<boolean> {
    const status: TaskStatus = { state, message: agentText(text), timestamp: new Date().toISOString() };
    task.lastSeq += 1;
    task.status = status;
    task.updatedAt = status.timestamp!;
    const event: LoggedEvent = { kind: "status", status, final: true, taskId: task.id, contextId: task.contextId, seq: task.lastSeq, metadata: { [TEXT_KIND_KEY]: "snapshot" } };
    this.#commits.add(task, event);
    const stored = await this.#commits.flushed(task.id);
    if (lease !== undefined) this.#opts.cluster?.endTurn(task.id, lease);
    return stored;
  }

  /** The store fenced these tasks' writes (their turn lease is gone): their turns stop here, unwritten. */
  #fenced(taskIds: string[]): void {
    for (const id of taskIds) {
      const live = this.#live.get(id);
      if (live) this.#stopUnwritten(live, "its cluster turn lease was taken over");
    }
  }

  /**
   * Stops a turn whose lease is lost without writing anything: the agent is told to stop, streams here go
   * back to the log (where the instance that took the turn over writes its end), waiters are released.
   */
  #stopUnwritten(live: LiveTask, reason: string): void {
    if (this.#live.get(live.task.id) !== live) return;
    this.#live.delete(live.task.id);
    live.turnEnded = true;
    clearTimeout(live.timer);
    live.controller.abort();
    for (const sub of live.subscribers) sub.fallBack();
    live.finish();
    const { agent, task, lease } = live;
    this.#log.error({ task: task.id, agent: agent.info.id, reason }, "turn stopped: this instance may no longer write it");
    agent.cancel?.(task.id).catch((err) => this.#log.warn({ err, task: task.id }, "agent cancel failed"));
    if (lease !== undefined) void this.#commits.flushed().then(() => this.#opts.cluster?.endTurn(task.id, lease));
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
    const cluster = this.#opts.cluster;
    if (!cluster) return this.#beginTurn(req, dialect, agent, undefined);
    // Cluster: an agent connected to another instance runs its turns there (the log brings the events back).
    const stored = req.taskId ? await this.#opts.store.getTask(req.taskId) : undefined;
    const owner = stored ? this.#opts.agents.find(stored.agentId) : agent;
    const instance = owner && cluster.remoteInstance(owner);
    if (instance !== undefined) return cluster.handOver(instance, req, dialect, owner!.info.id);
    // Otherwise this instance takes the turn's lease before reading the task: no other instance writes it now.
    req.taskId ??= randomUUID();
    if (this.#live.has(req.taskId)) return this.#beginTurn(req, dialect, agent, undefined);
    const lease = await cluster.beginTurn(req.taskId);
    try {
      if (lease.lostOwner) await this.#failLostTurn(req.taskId, lease.lostOwner);
      return await this.#beginTurn(req, dialect, agent, lease.token);
    } catch (err) {
      if (!this.#live.has(req.taskId)) await cluster.abandonTurn(req.taskId, lease.token).catch(() => undefined);
      throw err;
    }
  }

  /**
   * A turn lease taken from a lost instance: its turn, if still open, is failed before anything else (the
   * send that took the lease is then refused: the task is failed).
   */
  async #failLostTurn(taskId: string, lostOwner: string): Promise<void> {
    const task = await this.#opts.store.getTask(taskId);
    if (!task || TURN_END_STATES.has(task.status.state)) return;
    await this.#writeOwnFinal(task, "failed", lostInstanceText(lostOwner), undefined);
  }

  async #beginTurn(req: SendRequest, dialect: DialectName, agent: AgentConnector, lease: string | undefined): Promise<{ task: Task; fromSeq: number }> {
    const now = new Date().toISOString();
    let task: Task;
    const existing = req.taskId ? (this.#live.get(req.taskId)?.task ?? (await this.getTask(req.taskId))) : undefined;
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
        ...(req.owner !== undefined && { owner: req.owner }),
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
      ...(lease !== undefined && { lease }),
      startedAt: Date.now(),
      done,
      finish,
    };
    this.#live.set(task.id, live);
    this.#commits.add(task);
    if (!(await this.#commits.flushed(task.id))) throw TaskError.internal("the router could not store the task");
    // Cluster: the store refused the turn's first write (this instance lost its lease meanwhile).
    if (this.#live.get(task.id) !== live) throw TaskError.internal("this router instance lost its cluster lease while starting the task; retry");
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
    if (!this.#opts.cluster) return this.getTask(taskId);
    // Cluster: the turn may run on another instance (or have moved to one, this instance having lost its
    // lease): its end is in the log.
    const task = await this.getTask(taskId);
    if (!task || TURN_END_STATES.has(task.status.state)) return task;
    for await (const _ of this.events(taskId, task.lastSeq));
    return this.getTask(taskId);
  }

  /** The seq after which the task's current (or last) turn logs its events: where a chat resume starts. */
  async turnStart(task: Task): Promise<number> {
    const live = this.#live.get(task.id);
    if (live) return live.turnFromSeq;
    let start = 0;
    for (let cursor = 0; cursor < task.lastSeq; ) {
      const page = await this.#opts.store.readEvents(task.id, cursor, this.#opts.logPageSize);
      if (page.length === 0) break;
      for (const e of page) if (isTurnEnd(e) && e.seq < task.lastSeq) start = e.seq;
      cursor = page[page.length - 1]!.seq;
    }
    return start;
  }

  /** Cancels a task: tells the agent, ends the task `canceled`. */
  async cancel(taskId: string): Promise<Task> {
    const live = this.#live.get(taskId);
    const cluster = this.#opts.cluster;
    if (!live && cluster) {
      // Running on another instance: that instance tells its agent and ends the turn.
      const owner = await cluster.turnOwner(taskId);
      if (owner !== undefined) return cluster.forwardCancel(owner, taskId);
    }
    if (!live || live.turnEnded) {
      let task = live?.task ?? (await this.getTask(taskId));
      if (!task) throw TaskError.taskNotFound(taskId);
      if (isTerminal(task.status.state) || live?.turnEnded) throw TaskError.taskNotCancelable(taskId, task.status.state);
      // Waiting for input (or left by a lost instance): no agent is working on it, so the router ends it itself,
      // under a turn lease in cluster mode so that no other instance starts a turn meanwhile.
      const lease = !live && cluster ? await cluster.beginTurn(taskId) : undefined;
      if (lease) {
        task = (await this.#opts.store.getTask(taskId))!;
        if (isTerminal(task.status.state)) {
          await cluster!.abandonTurn(taskId, lease.token);
          throw TaskError.taskNotCancelable(taskId, task.status.state);
        }
      }
      if (!(await this.#writeOwnFinal(task, "canceled", "Canceled by the client.", lease?.token))) throw TaskError.internal("the router could not store the cancel");
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
    if (!(await this.#commits.flushed(taskId))) throw TaskError.internal("the router could not store the cancel");
    return structuredClone(live.task);
  }

  /**
   * The task's events with seq > afterSeq, in order, first from the log and then live. It ends after a
   * turn-ending event that nothing follows: a replay of a multi-turn task goes on through its later turns,
   * a live stream ends with its turn. A reader that falls behind transparently switches back to the log.
   */
  async *events(taskId: string, afterSeq: number, signal?: AbortSignal): AsyncGenerator<StreamEvent> {
    for await (const batch of this.eventBatches(taskId, afterSeq, signal)) yield* batch;
  }

  /**
   * `events` in batches, for transports: a page of the log (at most logPageSize events and about
   * streamBufferBytes bytes), or what one live stream collected since it last took. A stream writes a
   * batch in one go: per-event awaits and socket writes were most of a fast relay's cost.
   */
  async *eventBatches(taskId: string, afterSeq: number, signal?: AbortSignal): AsyncGenerator<StreamEvent[]> {
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
        // Failed for want of storage: the log stops short, the stream still ends with the failure.
        const failed = this.#unstored.get(taskId);
        if (failed) {
          const task = await store.getTask(taskId);
          if (task) yield [unstoredFailure(task, failed)];
          return;
        }
        // Or it runs on another instance: wait for that instance's next append, then read the log again.
        const elsewhere = this.#opts.cluster && (await this.#elsewhere(taskId, cursor));
        if (elsewhere === "appended") continue;
        if (elsewhere === "running") {
          await this.#opts.cluster!.waitForAppend(taskId, cursor, signal);
          continue;
        }
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
          // A batch ends at the turn's end, or at a failure that could not be logged (no seq).
          const end = got.findIndex((e) => e.seq === undefined || isTurnEnd(e));
          if (end >= 0) {
            yield end === got.length - 1 ? got : got.slice(0, end + 1);
            return;
          }
          yield got;
          cursor = got[got.length - 1]!.seq!;
        }
      } finally {
        live.subscribers.delete(sub);
      }
    }
  }

  /**
   * Cluster mode, for a task this instance does not run: "appended" when its log grew past `cursor` (since
   * the last read: the task and its events are stored together), "running" when its turn is open on another
   * instance, undefined when there is nothing to wait for.
   */
  async #elsewhere(taskId: string, cursor: number): Promise<"appended" | "running" | undefined> {
    const task = await this.#opts.store.getTask(taskId);
    if (!task) return undefined;
    if (task.lastSeq > cursor) return "appended";
    return !TURN_END_STATES.has(task.status.state) && !this.#live.has(taskId) ? "running" : undefined;
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
        flushed: () => this.#commits.flushed(task.id),
      });
      live.running = true;
      for await (const update of updates) {
        if (live.turnEnded) break;
        this.#append(live, update);
        if (live.turnEnded) break;
        if (this.#commits.pending > this.#opts.maxPendingEvents) await this.#commits.flushed(task.id);
      }
      if (!live.turnEnded) {
        if (live.canceling) this.#endTurn(live, "canceled", "Canceled by the client.");
        else this.#endTurn(live, "failed", `Agent ${agent.info.id} ended its turn without a final status.`);
      }
    } catch (err) {
      if (!live.turnEnded && live.canceling) this.#endTurn(live, "canceled", "Canceled by the client.");
      else if (!live.turnEnded) {
        this.#endTurn(live, "failed", this.#failureText(agent.info.id, live.task.id, err));
      }
    } finally {
      clearTimeout(live.timer);
      live.controller.abort();
    }
  }

  /**
   * What a client reads when an agent's turn throws. A connector's own Error says what went wrong in the
   * agent's terms ("Upstream agent x is unreachable: ..."), so it is shown; JavaScript's built-in errors
   * (TypeError, ...) are bugs, whose text ("x is not a function") is logged, never shown.
   */
  #failureText(agentId: string, taskId: string, err: unknown): string {
    if (err instanceof Error && !BUG_ERRORS.some((type) => err instanceof type)) return err.message;
    this.#log.error({ err, task: taskId, agent: agentId }, "agent failed with an internal error");
    return `Agent ${agentId} failed with an internal error.`;
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

  /**
   * The store refused a task's updates for the whole retry budget: fail the task loudly without them. Its
   * live streams get a final `failed` status that is not in the log (no seq, so no SSE id) and end; its agent
   * is told to cancel; tasks/get shows the stored snapshot with that status. Then one more try to store the
   * failure as the log's next event, so the store tells the truth after a restart too.
   */
  #storeFailed(lost: AbandonedWrites): void {
    const { taskId } = lost;
    const live = this.#live.get(taskId);
    if (!live && this.#unstored.has(taskId)) {
      this.#log.error({ err: lost.error, task: taskId }, "STORE FAILED again: the failure of a task could not be stored either; tasks/get reports it from memory until restart");
      return;
    }
    const storedSeq = live ? live.committedSeq : (lost.events[0]?.seq ?? lost.task.lastSeq + 1) - 1;
    const status: TaskStatus = {
      state: "failed",
      message: agentText(`The router could not store this task's updates, so it failed the task; its stored log ends at event ${storedSeq}.`),
      timestamp: new Date().toISOString(),
    };
    this.#log.error(
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
      this.#live.delete(taskId);
      live.finish();
      if (live.running && !wasEnded) {
        live.agent.cancel?.(taskId).catch((err) => this.#log.warn({ err, task: taskId }, "agent cancel after a store failure failed"));
      }
    }
    void this.#storeFailure(taskId, status);
  }

  /** Appends the failure to what the store holds of the task; on success the store needs no correcting. */
  async #storeFailure(taskId: string, status: TaskStatus): Promise<void> {
    let stored: Task | undefined;
    try {
      stored = await this.#opts.store.getTask(taskId);
    } catch (err) {
      this.#log.error({ err, task: taskId }, "could not read a task the store failed; tasks/get reports its failure from memory");
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
    this.#commits.add(stored, event);
    if (await this.#commits.flushed(taskId)) {
      this.#unstored.delete(taskId);
      this.#log.warn({ task: taskId, seq: stored.lastSeq }, "stored the failure of a task whose earlier updates could not be stored");
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
        if (live.lease !== undefined) this.#opts.cluster?.endTurn(event.taskId, live.lease);
        live.finish();
      }
    }
    this.#opts.observer?.eventsCommitted?.(events);
  }
}

/** The final message of a turn whose router instance was lost. */
function lostInstanceText(instance: string): string {
  return `Router instance ${instance}, which was running this task, was lost (its cluster lease expired); the task was failed.`;
}

/** The final status of a task failed because its updates could not be stored, as a stream event (no seq). */
function unstoredFailure(task: Task, status: TaskStatus): StreamEvent {
  return { kind: "status", status, final: true, taskId: task.id, contextId: task.contextId, metadata: { [TEXT_KIND_KEY]: "snapshot" } };
}

/** Waits for `p` (which must not reject), but no longer than `ms`. */
async function settledOrAfter(p: Promise<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([p, new Promise<void>((r) => (timer = setTimeout(r, ms)))]);
  clearTimeout(timer);
}
