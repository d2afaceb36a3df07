import type { AgentConnector } from "./agent.js";
import type { DialectName, SendRequest, Task } from "./model.js";

/**
 * What the engine asks of a cluster of routers sharing one store (router/cluster implements it on Redis).
 * Without one (memory, SQLite) the engine is alone and skips every call below: the single-process path stays
 * as fast as it was. The engine never learns how leases, hand-overs or notifications travel.
 *
 * Turn leases: the instance running a turn holds a lease on it, named by an opaque token. The store refuses
 * (fences) every write of a task whose token is no longer the task's current one, or whose instance lost its
 * own lease; the engine then stops that turn without writing anything more (`TaskEngine.fenced`).
 */
export interface EngineCluster {
  /** This instance's id, for log lines and messages. */
  readonly instanceId: string;
  /**
   * Takes the turn lease of a task, so that this instance alone writes it until `endTurn`. Succeeds when no
   * live instance holds it (free, held by a lost instance, or a stale lease of this one); otherwise throws
   * a TaskError saying the task runs elsewhere. Resolves with the lease token and, when the lease was taken
   * from a lost instance, that instance's id.
   */
  beginTurn(taskId: string): Promise<{ token: string; lostOwner?: string }>;
  /** Forgets a lease after its turn's final event is durable (the store dropped it in the same write). */
  endTurn(taskId: string, token: string): void;
  /** Gives a lease back without writing (a turn that was refused before its first write). */
  abandonTurn(taskId: string, token: string): Promise<void>;
  /** The live instance (not this one) holding the task's turn lease, if any. */
  turnOwner(taskId: string): Promise<string | undefined>;
  /** The instance an agent is connected to when it is not this one (a hub agent connected elsewhere). */
  remoteInstance(agent: AgentConnector): string | undefined;
  /** Starts a turn on the instance `agent` is connected to; resolves as `startTurn` does there. */
  handOver(instance: string, req: SendRequest, dialect: DialectName, agentId: string): Promise<{ task: Task; fromSeq: number }>;
  /** Cancels a task on the instance running its turn; resolves with the task as `cancel` does there. */
  forwardCancel(instance: string, taskId: string): Promise<Task>;
  /**
   * Resolves once the task's log may hold an event after `afterSeq` (another instance appended), or after a
   * bounded while in any case, or when `signal` aborts: the caller re-reads the log and decides.
   */
  waitForAppend(taskId: string, afterSeq: number, signal?: AbortSignal): Promise<void>;
}
