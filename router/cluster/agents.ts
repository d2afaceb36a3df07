import { HUB_DEFAULTS } from "../core/hub-defaults.js";
import type { Redis } from "ioredis";
import type { AgentConnector, AgentInfo, ExecuteContext } from "../core/agent.js";
import type { AgentUpdate } from "../core/model.js";
import type { ClusterKeys } from "../store/cluster-keys.js";

/**
 * Claims a hub agent name cluster-wide. KEYS: agents hash, change channel. ARGV: name, this instance's id,
 * the claim JSON, the instance key prefix. A name held by a live instance other than this one is refused (0);
 * one held by a lost instance, or by an earlier connection of this one (the hub checked it is gone), is
 * taken (1). -1: this instance's own lease is gone.
 */
const CLAIM_LUA = `
if redis.call('EXISTS', ARGV[4] .. ARGV[2]) == 0 then return -1 end
local cur = redis.call('HGET', KEYS[1], ARGV[1])
if cur then
  local c = cjson.decode(cur)
  if c.instance ~= ARGV[2] and redis.call('EXISTS', ARGV[4] .. c.instance) == 1 then return 0 end
end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[3])
redis.call('PUBLISH', KEYS[2], ARGV[1])
return 1`;

/** Frees a name if the given connection still holds it. KEYS: agents hash, channel. ARGV: name, connection id. */
const RELEASE_LUA = `
local cur = redis.call('HGET', KEYS[1], ARGV[1])
if cur and cjson.decode(cur).conn == ARGV[2] then
  redis.call('HDEL', KEYS[1], ARGV[1])
  redis.call('PUBLISH', KEYS[2], ARGV[1])
  return 1
end
return 0`;

interface Claim {
  instance: string;
  conn: string;
  info: AgentInfo;
}

/**
 * A hub agent connected to another instance, as this instance's registry lists it. The engine never runs it
 * here: it hands the turn over to `instance` (EngineCluster.remoteInstance).
 */
export class RemoteAgent implements AgentConnector {
  constructor(
    readonly info: AgentInfo,
    readonly instance: string,
    /** False once its connection is gone: it stays listed offline, as a dropped agent does on its own router. */
    readonly online = true,
  ) {}

  isOnline(): boolean {
    return this.online;
  }

  execute(_ctx: ExecuteContext): AsyncIterable<AgentUpdate> {
    throw new Error(`Agent ${this.info.id} is connected to another router instance.`);
  }
}

/**
 * The cluster-wide hub agent registry: a Redis hash name -> the connection holding it. A claim lives as
 * long as its instance's lease (renewed by that instance's heartbeat), so the name of a lost instance's agent
 * is free again once that lease expires. Each instance mirrors the other instances' agents, refreshed on
 * every change announcement and every `refreshMs` (which also notices instances that were lost).
 */
export class AgentClaims {
  #redis: Redis;
  #keys: ClusterKeys;
  #instanceId: () => string;
  #remote = new Map<string, RemoteAgent>();
  /** Agents seen online elsewhere whose connection is gone: listed offline (clients get agent-unavailable, not unknown-agent). */
  #gone = new Map<string, RemoteAgent>();
  #refreshing: Promise<void> | undefined;
  #again = false;
  #timer: NodeJS.Timeout | undefined;

  constructor(redis: Redis, keys: ClusterKeys, instanceId: () => string, refreshMs: number) {
    this.#redis = redis;
    this.#keys = keys;
    this.#instanceId = instanceId;
    this.#timer = setInterval(() => this.refresh(), refreshMs);
    this.#timer.unref();
  }

  /** Claims `name` for connection `conn` of this instance; false when another live instance holds it. */
  async claim(name: string, conn: string, info: AgentInfo): Promise<boolean> {
    const me = this.#instanceId();
    const claim: Claim = { instance: me, conn, info };
    const keys = [this.#keys.agents, this.#keys.agentsChannel];
    const answer = (await this.#redis.eval(CLAIM_LUA, 2, ...keys, name, me, JSON.stringify(claim), this.#keys.instancePrefix)) as number;
    return answer === 1;
  }

  /** Frees `name` if connection `conn` still holds it. */
  async release(name: string, conn: string): Promise<void> {
    await this.#redis.eval(RELEASE_LUA, 2, this.#keys.agents, this.#keys.agentsChannel, name, conn);
  }

  /** An agent of another instance, by id or name: online there, or seen there and gone (offline). */
  find(idOrName: string): RemoteAgent | undefined {
    for (const map of [this.#remote, this.#gone]) {
      const direct = map.get(idOrName);
      if (direct) return direct;
      for (const agent of map.values()) if (agent.info.name === idOrName) return agent;
    }
    return undefined;
  }

  list(): RemoteAgent[] {
    return [...this.#remote.values(), ...this.#gone.values()];
  }

  /** Re-reads the registry (coalesced: calls during a refresh run one more refresh after it). */
  refresh(): Promise<void> {
    if (this.#refreshing) {
      this.#again = true;
      return this.#refreshing;
    }
    this.#refreshing = this.#load()
      .catch(() => undefined)
      .finally(() => {
        this.#refreshing = undefined;
        if (this.#again) {
          this.#again = false;
          void this.refresh();
        }
      });
    return this.#refreshing;
  }

  close(): void {
    clearInterval(this.#timer);
  }

  async #load(): Promise<void> {
    const all = await this.#redis.hgetall(this.#keys.agents);
    const claims = Object.values(all).map((json) => JSON.parse(json) as Claim);
    const instances = [...new Set(claims.map((c) => c.instance))];
    const alive = new Set<string>();
    if (instances.length > 0) {
      const pipeline = this.#redis.pipeline();
      for (const id of instances) pipeline.exists(this.#keys.instance(id));
      const results = (await pipeline.exec()) ?? [];
      instances.forEach((id, i) => {
        if (results[i]?.[1] === 1) alive.add(id);
      });
    }
    const me = this.#instanceId();
    const next = new Map<string, RemoteAgent>();
    for (const c of claims) {
      if (c.instance === me || !alive.has(c.instance)) continue;
      const known = this.#remote.get(c.info.id);
      next.set(c.info.id, known && known.instance === c.instance ? known : new RemoteAgent(c.info, c.instance));
      this.#gone.delete(c.info.id);
    }
    for (const [id, was] of this.#remote) {
      if (next.has(id) || claims.some((c) => c.info.id === id && c.instance === me)) continue;
      this.#gone.delete(id);
      this.#gone.set(id, new RemoteAgent(was.info, was.instance, false));
    }
    // Bounded like the hub's own list of anonymous agents that left: the longest gone are forgotten first.
    for (const id of this.#gone.keys()) {
      if (this.#gone.size <= HUB_DEFAULTS.maxOfflineAnonymous) break;
      this.#gone.delete(id);
    }
    this.#remote = next;
  }
}
