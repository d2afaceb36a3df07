import type { AgentConnector } from "./agent.js";
import type { EngineCluster } from "./cluster.js";
import type { DialectName, SendRequest, Task } from "./model.js";

/** A turn that was started: the task as stored, and the seq after which the turn's events are logged. */
export interface PlacedTurn {
  task: Task;
  fromSeq: number;
}

/** What a placement may ask of its engine (given with each call; the engine's own state stays its own). */
export interface PlacementHost {
  /** The task as the store holds it. */
  storedTask(taskId: string): Promise<Task | undefined>;
  /** The task as the engine shows it (a failure not yet stored included). */
  getTask(taskId: string): Promise<Task | undefined>;
  findAgent(idOrName: string): AgentConnector | undefined;
  /** Whether this instance runs a turn of the task now. */
  isLive(taskId: string): boolean;
  /** Ends the turn of a lost instance, if still open, before a new one starts. */
  failLostTurn(taskId: string, lostOwner: string): Promise<void>;
  /** Ends a turn whose instance was lost; true when this call ended one. */
  adoptOrphan(taskId: string): Promise<boolean>;
  /** Fails every task a previous run of this router left in flight; resolves with how many. */
  failRestarted(tasks: Task[]): Promise<number>;
  /** Waits until the task's log has no turn in progress after `afterSeq` (its events, read to the turn's end). */
  followTurn(taskId: string, afterSeq: number): Promise<void>;
}

/** A turn to place: the caller's check of the task the request names, and how this instance begins it. */
export interface TurnToPlace {
  admit: ((existing: Task | undefined) => void) | undefined;
  /** Begins the turn here, written under `lease` (undefined: no lease needed). */
  begin(lease: string | undefined): Promise<PlacedTurn>;
}

/**
 * Where a task's turns run and under which lease they are written: this process alone (`LocalPlacement`),
 * or one router among several sharing a store (router/cluster's `ClusterPlacement`). Chosen when the router
 * is wired (router/server.ts); the engine asks it and never learns which one it has.
 */
export interface TurnPlacement {
  /**
   * Whether this instance is the only writer of its tasks: a blocking send's agent may then start before its
   * task is durable (with several, the first write may be fenced), and a turn it saw end is the task's end.
   */
  readonly soleWriter: boolean;
  /** The routers sharing the store, for the parts that follow other instances (leases, streams); absent alone. */
  readonly cluster?: EngineCluster;
  /** Ends the turns left in flight when the router starts; resolves with how many it ended. */
  recover(stuck: Task[], host: PlacementHost): Promise<number>;
  /** Starts a turn where it runs: here (`turn.begin`), or on the instance the task's agent is connected to. */
  startTurn(req: SendRequest, dialect: DialectName, agent: AgentConnector, turn: TurnToPlace, host: PlacementHost): Promise<PlacedTurn>;
  /** The task once the turn it ran is over, when this instance did not see it end (or is not its only writer). */
  settledTask(taskId: string, host: PlacementHost): Promise<Task | undefined>;
  /** Cancels the task on the instance running its turn, if that is another one (undefined: none is). */
  cancelElsewhere(taskId: string): Promise<Task | undefined>;
  /** The lease the router writes its own final status of an idle task under (undefined: none needed). */
  idleLease(taskId: string): Promise<string | undefined>;
  /** Gives back a lease taken but not written under. */
  abandon(taskId: string, lease: string): Promise<void>;
  /** The turn written under `lease` ended durably. */
  endTurn(taskId: string, lease: string): void;
}

/** One router alone with its store (memory, SQLite): every turn runs here, and no lease is needed. */
export class LocalPlacement implements TurnPlacement {
  readonly soleWriter = true;

  recover(stuck: Task[], host: PlacementHost): Promise<number> {
    return host.failRestarted(stuck);
  }

  startTurn(_req: SendRequest, _dialect: DialectName, _agent: AgentConnector, turn: TurnToPlace): Promise<PlacedTurn> {
    return turn.begin(undefined);
  }

  settledTask(taskId: string, host: PlacementHost): Promise<Task | undefined> {
    return host.getTask(taskId);
  }

  async cancelElsewhere(): Promise<Task | undefined> {
    return undefined;
  }

  async idleLease(): Promise<string | undefined> {
    return undefined;
  }

  async abandon(): Promise<void> {}

  endTurn(): void {}
}
