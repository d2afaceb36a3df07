import { once } from "node:events";
import { Redis } from "ioredis";
import type { Logger } from "pino";
import type { AgentConnector, AgentInfo } from "../core/agent.js";
import type { AgentDirectory } from "../core/agent-directory.js";
import type { EngineCluster } from "../core/cluster.js";
import { TaskError } from "../core/errors.js";
import type { DialectName, SendRequest, Task } from "../core/model.js";
import type { TaskStore } from "../core/store.js";
import type { ClusterKeys, CommitFence } from "../store/cluster-keys.js";
import { AgentClaims, RemoteAgent } from "./agents.js";
import { Inbox } from "./inbox.js";
import { Leases, tokenOwner } from "./lease.js";
import { LogWatcher } from "./log-watcher.js";
import { LIVE_STATES } from "../store/redis-store.js";

export interface ClusterOptions {
  /** The store's Redis URL (its database is the cluster's). */
  url: string;
  keys: ClusterKeys;
  /** The task store, read when a stream wakes up. */
  store: TaskStore;
  /** How long an instance that stopped renewing keeps its lease (and its turns). */
  leaseMs: number;
  logger: Logger;
}

/** What the cluster needs from this instance's engine, hub and registry (given by `attach`). */
export interface ClusterPeers {
  /** This instance's own agents (hosted, upstream, hub agents connected here). */
  localAgents: AgentDirectory;
  startTurn(req: SendRequest, dialect: DialectName, agent: AgentConnector): Promise<{ task: Task; fromSeq: number }>;
  cancel(taskId: string): Promise<Task>;
  /** Ends a turn whose instance was lost (see TaskEngine.adoptOrphan). */
  adoptOrphan(taskId: string): Promise<void>;
  /** This instance lost its lease: stop every turn without writing and drop every hub agent. */
  lost(reason: string): void;
}

/** A hand-over's answer may take this long: the agent's instance starts the turn and stores the task. */
const HANDOVER_TIMEOUT_MS = 10_000;
/** A stream waiting for another instance's appends re-reads the log at least this often. */
const POLL_MS = 1000;
/** Other instances' agents are re-read at least this often (an announcement is the fast path). */
const AGENTS_REFRESH_MS = 1000;

/**
 * Many routers, one task space, with Redis as the distributed engine (CONTRACT 11). Every instance holds a
 * lease (a key with a TTL) and a lease per turn it runs; the store's commit script fences every write by
 * both, so an instance that lost its lease writes nothing more. Streams on other instances follow the log
 * through one subscriber connection; hub agents are claimed cluster-wide and reached through per-instance
 * hand-over streams; survivors end the turns of a lost instance `failed`. Three connections per instance:
 * commands, subscriptions, the blocking inbox read.
 */
export class RedisCluster implements EngineCluster, CommitFence {
  #opts: ClusterOptions;
  #cmd: Redis;
  #sub: Redis;
  #blocking: Redis;
  #leases: Leases;
  #watcher: LogWatcher;
  #claims: AgentClaims;
  #inbox: Inbox | undefined;
  #peers: ClusterPeers | undefined;
  /** Task id -> the token of this instance's lease on its turn. */
  #tokens = new Map<string, string>();
  #reaper: NodeJS.Timeout | undefined;
  #reaping = false;
  #closed: Promise<void> | undefined;

  private constructor(opts: ClusterOptions) {
    this.#opts = opts;
    const connect = () => {
      const r = new Redis(opts.url, { lazyConnect: true, maxRetriesPerRequest: null });
      r.on("error", () => undefined); // commands report their own failures; reconnects are ioredis's
      return r;
    };
    this.#cmd = connect();
    this.#sub = connect();
    this.#blocking = connect();
    this.#leases = new Leases(this.#cmd, opts.keys, opts.leaseMs, (lostId) => this.#lost(lostId));
    this.#watcher = new LogWatcher(this.#sub, POLL_MS);
    this.#claims = new AgentClaims(this.#cmd, opts.keys, () => this.instanceId, Math.min(AGENTS_REFRESH_MS, opts.leaseMs));
  }

  /** Connects, takes this instance's lease and starts listening; `attach` before serving. */
  static async open(opts: ClusterOptions): Promise<RedisCluster> {
    const cluster = new RedisCluster(opts);
    await Promise.all([cluster.#cmd.connect(), cluster.#sub.connect(), cluster.#blocking.connect()]);
    cluster.#sub.on("message", (channel: string, message: string) => {
      if (channel === opts.keys.agentsChannel) void cluster.#claims.refresh();
      else cluster.#watcher.deliver(channel, message);
    });
    await cluster.#sub.subscribe(opts.keys.agentsChannel);
    await cluster.#leases.start();
    await cluster.#claims.refresh();
    return cluster;
  }

  get instanceId(): string {
    return this.#leases.instanceId;
  }

  /** Starts serving hand-overs and reaping the turns of lost instances. */
  attach(peers: ClusterPeers): void {
    this.#peers = peers;
    this.#inbox = new Inbox(
      this.#blocking,
      this.#cmd,
      this.#opts.keys,
      () => this.instanceId,
      {
        start: (body) => {
          const { req, dialect, agentId } = body as { req: SendRequest; dialect: DialectName; agentId: string };
          const agent = peers.localAgents.find(agentId);
          if (!agent || agent instanceof RemoteAgent || !agent.isOnline()) return Promise.reject(TaskError.agentUnavailable(agentId));
          return peers.startTurn(req, dialect, agent);
        },
        cancel: (body) => peers.cancel((body as { taskId: string }).taskId),
      },
      this.#opts.logger,
    );
    this.#inbox.start();
    this.#reaper = setInterval(() => void this.reap(), Math.max(1, Math.floor(this.#opts.leaseMs / 2)));
    this.#reaper.unref();
  }

  // CommitFence (the store asks)

  token(taskId: string): string | undefined {
    return this.#tokens.get(taskId);
  }

  // EngineCluster (the engine asks)

  async beginTurn(taskId: string): Promise<{ token: string; lostOwner?: string }> {
    const got = await this.#leases.begin(taskId, this.#tokens.has(taskId));
    if (!got.taken) {
      if (got.holder === undefined) throw TaskError.internal("this router instance is rejoining the cluster; retry");
      throw TaskError.invalidParams(`task ${taskId} is still running a turn; wait for it or cancel it`, "id");
    }
    this.#tokens.set(taskId, got.token);
    const previous = got.previous === undefined ? undefined : tokenOwner(got.previous);
    return { token: got.token, ...(previous !== undefined && previous !== this.instanceId && { lostOwner: previous }) };
  }

  endTurn(taskId: string, token: string): void {
    if (this.#tokens.get(taskId) === token) this.#tokens.delete(taskId);
  }

  async abandonTurn(taskId: string, token: string): Promise<void> {
    this.endTurn(taskId, token);
    await this.#leases.abandon(taskId, token);
  }

  async turnOwner(taskId: string): Promise<string | undefined> {
    const holder = await this.#leases.holder(taskId);
    return holder === this.instanceId ? undefined : holder;
  }

  remoteInstance(agent: AgentConnector): string | undefined {
    return agent instanceof RemoteAgent ? agent.instance : undefined;
  }

  async handOver(instance: string, req: SendRequest, dialect: DialectName, agentId: string): Promise<{ task: Task; fromSeq: number }> {
    const answer = await this.#request(instance, "start", { req, dialect, agentId }, () => TaskError.agentUnavailable(agentId));
    return answer as { task: Task; fromSeq: number };
  }

  async forwardCancel(instance: string, taskId: string): Promise<Task> {
    const unreachable = () => TaskError.internal(`the router instance running task ${taskId} did not answer the cancel`);
    return (await this.#request(instance, "cancel", { taskId }, unreachable)) as Task;
  }

  waitForAppend(taskId: string, afterSeq: number, signal?: AbortSignal): Promise<void> {
    const { store } = this.#opts;
    return this.#watcher.wait(this.#opts.keys.log(taskId), afterSeq, async () => (await store.readEvents(taskId, afterSeq, 1)).length > 0, signal);
  }

  // The hub asks (HubCluster)

  claimAgent(name: string, conn: string, info: AgentInfo): Promise<boolean> {
    return this.#claims.claim(name, conn, info);
  }

  releaseAgent(name: string, conn: string): void {
    this.#claims.release(name, conn).catch((err: unknown) => this.#opts.logger.warn({ err, agent: name }, "could not free the agent name"));
  }

  // The registry asks (agents connected to other instances)

  findRemote(idOrName: string): RemoteAgent | undefined {
    return this.#claims.find(idOrName);
  }

  listRemote(): RemoteAgent[] {
    return this.#claims.list();
  }

  /** One reaper pass: ends the turns whose instance was lost (the engine takes their leases first). */
  async reap(): Promise<void> {
    const peers = this.#peers;
    if (!peers || this.#reaping) return;
    this.#reaping = true;
    try {
      for (const taskId of await this.#leases.orphans())
        await peers.adoptOrphan(taskId).catch((err: unknown) => {
          if (!(err instanceof TaskError)) this.#opts.logger.warn({ err, task: taskId }, "could not end a lost instance's turn");
        });
    } catch (err) {
      this.#opts.logger.warn({ err }, "cluster reaper pass failed");
    } finally {
      this.#reaping = false;
    }
  }

  /**
   * Leaves the cluster: deletes this instance's lease (survivors reap what is left at once), closes connections.
   * Idempotent: later calls share the first; resolves once no socket or timer of the cluster is left.
   */
  close(): Promise<void> {
    this.#closed ??= this.#close();
    return this.#closed;
  }

  async #close(): Promise<void> {
    clearInterval(this.#reaper);
    this.#claims.close();
    this.#watcher.close();
    await this.#inbox?.stop();
    await this.#leases.stop();
    // The blocking connection is cut rather than quit: a QUIT would wait behind its XREAD.
    await Promise.all([closeConnection(this.#blocking, false), closeConnection(this.#cmd, true), closeConnection(this.#sub, true)]);
    await this.#inbox?.stopped;
  }

  #request(instance: string, kind: string, body: unknown, onTimeout: () => Error): Promise<unknown> {
    if (!this.#inbox) return Promise.reject(TaskError.internal("the cluster is not attached"));
    return this.#inbox.request(instance, kind, body, HANDOVER_TIMEOUT_MS, onTimeout);
  }

  #lost(lostId: string): void {
    this.#opts.logger.error(
      { instance: lostId, next: this.instanceId },
      "LOST the cluster lease (this process stalled or was cut from Redis for longer than cluster.leaseMs): " +
        "its turns were stopped and are ended by the other instances; rejoining under a new id",
    );
    // The tokens stay: a write still queued under one is refused by the store (its instance is gone), and the
    // engine forgets each once its queue is flushed.
    this.#peers?.lost(`router instance ${lostId} lost its cluster lease`);
  }
}

/**
 * Closes `r` (QUIT when `graceful` and ready, else cut) and waits for its end. Never on an ended connection:
 * each disconnect() arms a ref'd 2 s guard timer that only its socket's "close" clears, so on a closed socket
 * it holds the process open for 2 s. Between reconnects disconnect() only clears the retry timer (no "end").
 */
async function closeConnection(r: Redis, graceful: boolean): Promise<void> {
  if (r.status === "end") return;
  if (!LIVE_STATES.has(r.status)) return r.disconnect();
  const ended = once(r, "end");
  if (graceful && r.status === "ready") await r.quit().catch(() => r.disconnect());
  else r.disconnect();
  await ended;
}
