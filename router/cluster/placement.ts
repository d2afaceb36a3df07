import type { AgentConnector } from "../core/agent.js";
import type { EngineCluster } from "../core/cluster.js";
import { newId } from "../core/ids.js";
import { TURN_END_STATES, type DialectName, type SendRequest, type Task } from "../core/model.js";
import type { PlacedTurn, PlacementHost, TurnPlacement, TurnToPlace } from "../core/placement.js";

/**
 * One router among several sharing a Redis store (CONTRACT 11): a turn runs on the instance its agent is
 * connected to, under a turn lease the store fences writes by; a cancel goes to the instance running the
 * turn; the turns of lost instances are ended by the survivors.
 */
export class ClusterPlacement implements TurnPlacement {
  readonly soleWriter = false;
  readonly cluster: EngineCluster;

  constructor(cluster: EngineCluster) {
    this.cluster = cluster;
  }

  /** Other instances' turns are theirs: only the turns of lost instances (or of no instance) are ended. */
  async recover(stuck: Task[], host: PlacementHost): Promise<number> {
    let ended = 0;
    for (const task of stuck) if (await host.adoptOrphan(task.id).catch(() => false)) ended++;
    return ended;
  }

  async startTurn(req: SendRequest, dialect: DialectName, agent: AgentConnector, turn: TurnToPlace, host: PlacementHost): Promise<PlacedTurn> {
    const { cluster } = this;
    // An agent connected to another instance runs its turns there (the log brings the events back).
    const stored = req.taskId ? await host.storedTask(req.taskId) : undefined;
    turn.admit?.(stored);
    const owner = stored ? host.findAgent(stored.agentId) : agent;
    const instance = owner && cluster.remoteInstance(owner);
    if (instance !== undefined) return cluster.handOver(instance, req, dialect, owner!.info.id);
    // Otherwise this instance takes the turn's lease before reading the task: no other instance writes it now.
    req.taskId ??= newId();
    if (host.isLive(req.taskId)) return turn.begin(undefined);
    const lease = await cluster.beginTurn(req.taskId);
    try {
      if (lease.lostOwner) await host.failLostTurn(req.taskId, lease.lostOwner);
      return await turn.begin(lease.token);
    } catch (err) {
      if (!host.isLive(req.taskId)) await cluster.abandonTurn(req.taskId, lease.token).catch(() => undefined);
      throw err;
    }
  }

  /** The turn may run on another instance (or have moved to one, this instance having lost its lease): its end is in the log. */
  async settledTask(taskId: string, host: PlacementHost): Promise<Task | undefined> {
    const task = await host.getTask(taskId);
    if (!task || TURN_END_STATES.has(task.status.state)) return task;
    await host.followTurn(taskId, task.lastSeq);
    return host.getTask(taskId);
  }

  /** Running on another instance: that instance tells its agent and ends the turn. */
  async cancelElsewhere(taskId: string): Promise<Task | undefined> {
    const owner = await this.cluster.turnOwner(taskId);
    return owner === undefined ? undefined : this.cluster.forwardCancel(owner, taskId);
  }

  /** No other instance may start a turn while the router ends an idle task itself. */
  async idleLease(taskId: string): Promise<string | undefined> {
    return (await this.cluster.beginTurn(taskId)).token;
  }

  abandon(taskId: string, lease: string): Promise<void> {
    return this.cluster.abandonTurn(taskId, lease);
  }

  endTurn(taskId: string, lease: string): void {
    this.cluster.endTurn(taskId, lease);
  }
}
