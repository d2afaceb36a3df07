/**
 * The keys and channels routers sharing one Redis store use to coordinate (router/cluster), in one place:
 * the store's commit script checks turn leases and announces appends with them, so both sides must agree.
 */
export interface ClusterKeys {
  /** Hash: task id -> the token of the lease on its running turn (`<instanceId>|<epoch>`). */
  turns: string;
  /** Counter: every lease gets the next epoch. */
  epoch: string;
  /** String with a TTL: present while the instance is alive (its lease); the prefix of `instance(id)`. */
  instance(id: string): string;
  instancePrefix: string;
  /** Hash: hub agent name -> JSON {instance, conn, info} of the connection holding the name. */
  agents: string;
  /** Channel: an agent name whose claim changed. */
  agentsChannel: string;
  /** Stream: hand-overs and replies addressed to one instance. */
  inbox(id: string): string;
  /** Channel: the last seq appended to a task's log. */
  log(taskId: string): string;
  logPrefix: string;
}

/** The cluster keys under a store prefix. */
export function clusterKeys(prefix: string): ClusterKeys {
  const p = `${prefix}cluster:`;
  return {
    turns: `${p}turns`,
    epoch: `${p}epoch`,
    instance: (id) => `${p}instance:${id}`,
    instancePrefix: `${p}instance:`,
    agents: `${p}agents`,
    agentsChannel: `${p}agents-changed`,
    inbox: (id) => `${p}inbox:${id}`,
    log: (taskId) => `${p}log:${taskId}`,
    logPrefix: `${p}log:`,
  };
}

/**
 * Tells a store which writes to fence: those of a task whose turn lease this instance holds (or held: a
 * stale token is refused by the store, which is the point).
 */
export interface CommitFence {
  /** The token of this instance's lease on the task's turn, if it holds one. */
  token(taskId: string): string | undefined;
}
