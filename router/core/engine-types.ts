import type { Logger } from "pino";
import type { AgentConnector } from "./agent.js";
import type { AgentDirectory } from "./agent-directory.js";
import type { TurnPlacement } from "./placement.js";
import type { LoggedEvent, Task } from "./model.js";
import type { TaskStore } from "./store.js";
import type { Subscriber } from "./subscriber.js";

/** Hooks for metrics and push notifications; all optional, all called after the fact. */
export interface EngineObserver {
  /** A turn was handed to its agent (before its task is durable, outside a cluster). */
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
  /** Bytes of uncommitted events (their JSON) above which the same. Default 1 MiB. */
  maxUnstoredBytes?: number;
  /** Events read from the log per page when a stream catches up. */
  logPageSize?: number;
  /**
   * How long a task's updates that the store refuses are retried before the task is failed (its streams end
   * with a `failed` status that is not in the log, its agent is told to cancel). Default 30000.
   */
  commitRetryMs?: number;
  observer?: EngineObserver;
  /**
   * Where turns run and under which lease: one router alone (the default, `LocalPlacement`), or one of several
   * sharing the store (router/cluster's `ClusterPlacement`: a turn takes a lease first, an agent connected
   * elsewhere gets its turn handed over, a cancel of a turn running elsewhere is forwarded, a stream of a turn
   * running elsewhere waits on its log, and the turns of lost instances are ended).
   */
  placement?: TurnPlacement;
}

/** A task with a turn in progress (or just ended, until its final event is committed). */
export interface LiveTask {
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

/** How a caller starts a turn (TaskEngine.startTurn). */
export interface StartOptions {
  /** The caller only awaits the turn's result (a blocking send): its agent may start before the task is durable. */
  blocking?: boolean;
  /**
   * The caller's check of the task the request names, as the engine reads it (undefined when there is none),
   * before anything changes: it throws to refuse (a task the caller may not see, a dialect that cannot name a
   * new one). The engine reads the task once for both.
   */
  admit?: (existing: Task | undefined) => void;
}

/** A turn start as the engine carries it through: `early` is `blocking` where it is allowed (not in a cluster). */
export interface TurnStart {
  early: boolean;
  admit: ((existing: Task | undefined) => void) | undefined;
}
