import type { Logger } from "pino";
import { isoNow } from "./clock.js";
import { copyData } from "./data-copy.js";
import { TaskError } from "./errors.js";
import type { AgentConnector } from "./agent.js";
import { CommitQueue } from "./commit-queue.js";
import type { EngineObserver, EngineOptions, LiveTask, StartOptions, TurnStart } from "./engine-types.js";
import { EventStream, type EventStreamHost } from "./event-stream.js";
import { isTerminal, TURN_END_STATES, type DialectName, type LoggedEvent, type SendRequest, type Task } from "./model.js";
import type { ListTasksFilter, ListTasksQuery } from "./store.js";
import { SharedLog } from "./shared-log.js";
import { StoreFailures } from "./store-failures.js";
import { TurnLeases } from "./turn-leases.js";
import { LocalPlacement, type PlacementHost, type TurnPlacement } from "./placement.js";
import { copyOfNew, newTask, nextTurn } from "./task-state.js";
import { TurnRunner } from "./turn-runner.js";
import { failRestarted, lastTurnStart } from "./restart-recovery.js";
import { settledOrAfter } from "./turn-rules.js";
import { TurnWaiters } from "./turn-waiters.js";

export type { EngineObserver, EngineOptions };

/**
 * The event-count guard is far above what one store commit fans out (thousands of small events per tick on a
 * fast agent): a lower one made fast streams overflow every tick and re-read, re-parse and re-render each
 * event from the log. Memory is bounded by streamBufferBytes instead.
 */
const DEFAULTS = { subscriberCapacity: 65_536, streamBufferBytes: 1_048_576, maxPendingEvents: 10_000, maxUnstoredBytes: 262_144, logPageSize: 256 };
/** How long tasks/cancel waits for the agent to take the cancel before ending the task itself. */
const CANCEL_GRACE_MS = 2000;
/** How long shutdown waits for agents to take the cancels of the turns it failed. */
const SHUTDOWN_CANCEL_MS = 1000;

/**
 * The transport-free heart of the router: creates tasks, runs agent turns, appends every agent update to
 * the task's ordered log (durably, batched per tick), and fans committed events out to live streams.
 */
export class TaskEngine {
  #opts: EngineOptions & typeof DEFAULTS;
  #live = new Map<string, LiveTask>();
  #commits: CommitQueue;
  #log: Logger;
  #closing = false;
  #fallbacks = 0;
  /** Streams' reads of the log and of live turns. */
  /** What every EventStream of this engine reads from. */
  #streams: EventStreamHost;
  /** Task ids whose turn is being set up (between the request and the task's first store write). */
  #starting = new Set<string>();
  /** Tasks failed because the store refused their updates (see StoreFailures). */
  #failures: StoreFailures;
  /** The router's own final statuses, and turns stopped when a cluster lease is lost. */
  #leases: TurnLeases;
  /** Runs agents' turns and appends their updates to the log. */
  #turns: TurnRunner;
  /** Streams waiting for a task's next turn (a task waiting for input), by task. */
  #turnWaiters = new TurnWaiters();
  /** What startTurn returned -> its turn, for turnResult. */
  #started = new WeakMap<object, LiveTask>();
  /** Where turns run and under which lease (alone, or one router of a cluster). */
  #placement: TurnPlacement;
  /** What the placement may ask of this engine. */
  #host: PlacementHost = {
    storedTask: (taskId) => this.#opts.store.getTask(taskId),
    getTask: (taskId) => this.getTask(taskId),
    findAgent: (idOrName) => this.#opts.agents.find(idOrName),
    isLive: (taskId) => this.#live.has(taskId),
    failLostTurn: (taskId, lostOwner) => this.#leases.failLostTurn(taskId, lostOwner),
    adoptOrphan: (taskId) => this.adoptOrphan(taskId),
    failRestarted: (tasks) => failRestarted(tasks, this.#commits, this.#log),
    followTurn: async (taskId, afterSeq) => {
      for await (const _ of this.events(taskId, afterSeq));
    },
  };

  constructor(options: EngineOptions) {
    this.#opts = { ...DEFAULTS, ...options };
    this.#log = options.logger;
    this.#commits = new CommitQueue(options.store, {
      onCommitted: (events) => this.#fanOut(events),
      onAbandoned: (lost) => this.#failures.failed(lost),
      log: options.logger,
      onFenced: (ids) => this.#leases.fenced(ids),
      ...(options.commitRetryMs !== undefined && { retryMs: options.commitRetryMs }),
    });
    const { store, observer } = options;
    this.#placement = options.placement ?? new LocalPlacement();
    const cluster = this.#placement.cluster;
    this.#turns = new TurnRunner({
      commits: this.#commits,
      log: this.#log,
      taskTimeoutMs: options.taskTimeoutMs,
      maxPendingEvents: this.#opts.maxPendingEvents,
      maxUnstoredBytes: this.#opts.maxUnstoredBytes,
      ...(observer && { observer }),
    });
    const live = this.#live;
    this.#failures = new StoreFailures({ store, commits: this.#commits, log: this.#log, live });
    this.#leases = new TurnLeases({ store, commits: this.#commits, log: this.#log, live, ...(cluster && { cluster }) });
    this.#streams = {
      store,
      pages: new SharedLog(store),
      options: this.#opts,
      log: this.#log,
      live: (taskId) => live.get(taskId),
      unstoredFailure: (taskId) => this.#failures.get(taskId),
      ...(cluster && { cluster }),
      onFallback: () => void this.#fallbacks++,
      nextTurn: (taskId, afterSeq, signal) => this.#nextTurn(taskId, afterSeq, signal),
    };
  }

  /** Up to `limit` of the task's logged events after `afterSeq`, as stored. */
  readEvents(taskId: string, afterSeq: number, limit: number): Promise<LoggedEvent[]> {
    return this.#opts.store.readEvents(taskId, afterSeq, limit);
  }

  /** Stored tasks matching `query`, newest first (ListTasks, a chat session's newest turn). */
  listTasks(query: ListTasksQuery): Promise<Task[]> {
    return this.#opts.store.listTasks(query);
  }

  /** How many stored tasks match `filter`, over all pages. */
  countTasks(filter: ListTasksFilter): Promise<number> {
    return this.#opts.store.countTasks(filter);
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
    return this.#placement.recover(stuck, this.#host);
  }

  /**
   * The task as stored. A task failed because its updates could not be stored shows its stored snapshot
   * (nothing the store does not hold) with the failed status, until that failure is stored too.
   */
  async getTask(taskId: string): Promise<Task | undefined> {
    const task = await this.#opts.store.getTask(taskId);
    const failed = this.#failures.get(taskId);
    return task && failed ? { ...task, status: structuredClone(failed) } : task;
  }

  /**
   * Cluster mode: takes the turn lease of a task whose instance was lost (or that no instance holds) and ends
   * the turn `failed`, saying what was lost. Throws a TaskError when a live instance holds the turn. Resolves
   * true when this call ended a turn.
   */
  async adoptOrphan(taskId: string): Promise<boolean> {
    return this.#leases.adoptOrphan(taskId);
  }

  /**
   * Cluster mode: this instance lost its lease, so the store refuses its writes: stops every turn at once,
   * without writing, and tells the agents to stop (the instances that take the turns over end them).
   */
  lost(reason: string): void {
    this.#leases.lost(reason);
  }

  /**
   * Starts a turn: a new task, or the next turn of a task waiting for input. Resolves once the task is
   * stored, with the seq after which this turn's events will be logged. `blocking`: the caller only awaits
   * turnResult (a blocking send), so the agent may start before the task is durable (not in a cluster, where
   * the task's first write may be fenced). `admit`: the caller's check of a task the request names (as the
   * engine reads it, absent or not), run before anything changes; it throws to refuse. The task is read once.
   */
  async startTurn(req: SendRequest, dialect: DialectName, agent: AgentConnector, opts: StartOptions = {}): Promise<{ task: Task; fromSeq: number }> {
    const start: TurnStart = { early: opts.blocking === true && this.#placement.soleWriter, admit: req.taskId !== undefined ? opts.admit : undefined };
    if (this.#closing) throw TaskError.shuttingDown();
    if (req.taskId !== undefined) {
      // Claim the id before the first await: concurrent sends with one id must not start two turns.
      if (this.#starting.has(req.taskId)) throw TaskError.invalidParams(`task ${req.taskId} is being started by another request`, "id");
      this.#starting.add(req.taskId);
      try {
        return await this.#startTurn(req, dialect, agent, start);
      } finally {
        this.#starting.delete(req.taskId);
      }
    }
    return this.#startTurn(req, dialect, agent, start);
  }

  /** Places the turn: here, or on the instance the task's agent is connected to (see TurnPlacement). */
  #startTurn(req: SendRequest, dialect: DialectName, agent: AgentConnector, start: TurnStart): Promise<{ task: Task; fromSeq: number }> {
    const turn = { admit: start.admit, begin: (lease: string | undefined) => this.#beginTurn(req, dialect, agent, lease, start) };
    return this.#placement.startTurn(req, dialect, agent, turn, this.#host);
  }

  async #beginTurn(
    req: SendRequest,
    dialect: DialectName,
    agent: AgentConnector,
    lease: string | undefined,
    start: TurnStart,
  ): Promise<{ task: Task; fromSeq: number }> {
    const now = isoNow();
    let task: Task;
    const existing = req.taskId ? (this.#live.get(req.taskId)?.task ?? (await this.getTask(req.taskId))) : undefined;
    start.admit?.(existing);
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
      nextTurn(task, req, now);
    } else {
      task = newTask(req, dialect, agent.info.id, now);
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
    this.#turnWaiters.wake(task.id);
    this.#commits.add(task);
    const stored = this.#commits.flushed(task.id);
    const started = { task: existing ? copyData(task) : copyOfNew(task), fromSeq: task.lastSeq };
    this.#started.set(started, live);
    // Early, a turn that ends within the tick is stored with its task in one commit, not two (answers wait for
    // commits). A stream subscribes once its task is stored: its agent starts then, so it sees the turn live.
    if (start.early) this.#hand(live, req);
    if (!(await stored)) throw TaskError.internal("the router could not store the task");
    // Cluster: the store refused the turn's first write (this instance lost its lease meanwhile).
    if (!start.early && this.#live.get(task.id) !== live)
      throw TaskError.internal("this router instance lost its cluster lease while starting the task; retry");
    if (!start.early) this.#hand(live, req);
    return started;
  }

  #hand(live: LiveTask, req: SendRequest): void {
    const { task, agent } = live;
    this.#opts.observer?.taskStarted?.(task);
    this.#log.debug({ task: task.id, agent: agent.info.id, context: task.contextId }, "task turn started");
    void this.#turns.run(live, req);
  }

  /**
   * The task once the turn `turn` (what startTurn returned) has ended and its final event is durable: what a
   * blocking send answers with. Waits on the turn itself, reading nothing from the log.
   */
  async turnResult(turn: { task: Task; fromSeq: number }): Promise<Task | undefined> {
    const {
      task: { id: taskId },
      fromSeq,
    } = turn;
    // A turn that ended within its first commit has left #live before its caller asks.
    const live = this.#started.get(turn) ?? this.#live.get(taskId);
    if (live && live.turnFromSeq === fromSeq) {
      await live.done;
      // Durable and never written again (a next turn reads the store): not copied; read-only. Failed unstored: read.
      if (this.#placement.soleWriter && !this.#failures.get(taskId)) return live.task;
    }
    return this.#placement.settledTask(taskId, this.#host);
  }

  /** The seq after which the task's current (or last) turn logs its events: where a chat resume starts. */
  async turnStart(task: Task): Promise<number> {
    const live = this.#live.get(task.id);
    if (live) return live.turnFromSeq;
    return lastTurnStart(this.#opts.store, task, this.#opts.logPageSize);
  }

  /** Cancels a task: tells the agent, ends the task `canceled`. */
  async cancel(taskId: string): Promise<Task> {
    const live = this.#live.get(taskId);
    if (!live) {
      const elsewhere = await this.#placement.cancelElsewhere(taskId);
      if (elsewhere) return elsewhere;
    }
    if (!live || live.turnEnded) {
      let task = live?.task ?? (await this.getTask(taskId));
      if (!task) throw TaskError.taskNotFound(taskId);
      if (isTerminal(task.status.state) || live?.turnEnded) throw TaskError.taskNotCancelable(taskId, task.status.state);
      // Waiting for input (or left by a lost instance): no agent is working on it, so the router ends it itself,
      // under the placement's lease (in a cluster) so that no other instance starts a turn meanwhile.
      const lease = live ? undefined : await this.#placement.idleLease(taskId);
      if (lease !== undefined) {
        task = (await this.#opts.store.getTask(taskId))!;
        if (isTerminal(task.status.state)) {
          await this.#placement.abandon(taskId, lease);
          throw TaskError.taskNotCancelable(taskId, task.status.state);
        }
      }
      if (!(await this.#leases.writeOwnFinal(task, "canceled", "Canceled by the client.", lease)))
        throw TaskError.internal("the router could not store the cancel");
      // The agent may still hold the task (an SDK handler in ctx.ask, an upstream task waiting for input): tell it.
      const holder = this.#opts.agents.find(task.agentId);
      holder?.cancel?.(taskId).catch((err) => this.#log.warn({ err, task: taskId }, "agent cancel failed"));
      return copyData(task);
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
    if (!live.turnEnded) this.#turns.endTurn(live, "canceled", "Canceled by the client.");
    if (!(await this.#commits.flushed(taskId))) throw TaskError.internal("the router could not store the cancel");
    return copyData(live.task);
  }

  /**
   * The task's events with seq > afterSeq, in order, first from the log and then live. It ends after a
   * turn-ending event that nothing follows: a replay of a multi-turn task goes on through its later turns,
   * a live stream ends with its turn. A reader that falls behind transparently switches back to the log.
   * Transports take them in batches (`nextBatch`: a page of the log, at most logPageSize events and about
   * streamBufferBytes bytes, or what one live stream collected since it last took) and `close()` it when
   * their client goes away; `signal` closes it too.
   */
  events(taskId: string, afterSeq: number, signal?: AbortSignal, opts: { untilTaskEnds?: boolean } = {}): EventStream {
    return new EventStream(this.#streams, taskId, afterSeq, signal, opts.untilTaskEnds === true);
  }

  /**
   * Resolves once the task's log grows past `afterSeq` or a turn of it starts here (another instance's
   * append, in a cluster), or `signal` aborts: what a stream waiting for a task's next turn awaits.
   */
  #nextTurn(taskId: string, afterSeq: number, signal: AbortSignal): Promise<void> {
    const cluster = this.#placement.cluster;
    if (cluster) return cluster.waitForAppend(taskId, afterSeq, signal);
    return this.#turnWaiters.wait(taskId, signal, async () => this.#live.has(taskId) || (await this.#opts.store.readEvents(taskId, afterSeq, 1)).length > 0);
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
      this.#turns.endTurn(live, "failed", "The router shut down while this task was in flight.");
      const { agent, task } = live;
      if (agent.cancel) told.push(agent.cancel(task.id).catch((err) => this.#log.warn({ err, task: task.id }, "agent cancel at shutdown failed")));
    }
    await settledOrAfter(Promise.all(told), SHUTDOWN_CANCEL_MS);
    await this.#commits.flushed();
  }

  #fanOut(events: LoggedEvent[]): void {
    for (const event of events) {
      if (!this.#turnWaiters.idle) this.#turnWaiters.wake(event.taskId);
      const live = this.#live.get(event.taskId);
      if (!live) continue;
      live.committedSeq = event.seq;
      for (const sub of live.subscribers) sub.push(event);
      if (event.kind === "status" && event.final && live.turnEnded && live.task.lastSeq === event.seq) {
        this.#live.delete(event.taskId);
        if (live.lease !== undefined) this.#placement.endTurn(event.taskId, live.lease);
        live.finish();
      }
    }
    this.#opts.observer?.eventsCommitted?.(events);
  }
}
