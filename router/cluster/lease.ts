import { randomBytes } from "node:crypto";
import { hostname } from "node:os";
import type { Redis } from "ioredis";
import type { ClusterKeys } from "../store/cluster-keys.js";

/**
 * Takes a task's turn lease. KEYS: turns hash, epoch counter. ARGV: task id, this instance's id, the instance
 * key prefix, "1" when this instance already runs the task's turn itself.
 * Returns {1, token, previous token or ""} when taken: the lease was free, held by an instance whose own lease
 * expired (lost), or a stale lease of this instance; {0, holder} when a live instance (or this one, running it)
 * holds it; {-1} when this instance's own lease is gone (it must not take anything).
 */
const BEGIN_TURN_LUA = `
if redis.call('EXISTS', ARGV[3] .. ARGV[2]) == 0 then return {-1} end
local cur = redis.call('HGET', KEYS[1], ARGV[1])
if cur then
  local owner = string.match(cur, '^(.*)|')
  if owner ~= ARGV[2] and redis.call('EXISTS', ARGV[3] .. owner) == 1 then return {0, owner} end
  if owner == ARGV[2] and ARGV[4] == '1' then return {0, owner} end
end
local token = ARGV[2] .. '|' .. redis.call('INCR', KEYS[2])
redis.call('HSET', KEYS[1], ARGV[1], token)
return {1, token, cur or ''}`;

/** Drops a lease if it is still the given one. KEYS: turns hash. ARGV: task id, token. */
const ABANDON_TURN_LUA = `
if redis.call('HGET', KEYS[1], ARGV[1]) == ARGV[2] then return redis.call('HDEL', KEYS[1], ARGV[1]) end
return 0`;

/** The instance named by a lease token (`<instanceId>|<epoch>`). */
export function tokenOwner(token: string): string {
  return token.slice(0, token.lastIndexOf("|"));
}

/** A fresh instance id: host and pid first, so an operator can tell who held what. */
export function newInstanceId(): string {
  return `${hostname()}-${process.pid}-${randomBytes(4).toString("hex")}`;
}

export type BeginResult = { taken: true; token: string; previous?: string } | { taken: false; holder?: string };

/**
 * The instance lease (a key with a TTL, renewed every third of `leaseMs`; gone = this instance is lost) and
 * the turn leases (a hash task id -> token, fenced by the store's commit script). Redis alone decides who
 * holds what: no message between routers is needed to agree.
 */
export class Leases {
  #redis: Redis;
  #keys: ClusterKeys;
  #leaseMs: number;
  #id = newInstanceId();
  #timer: NodeJS.Timeout | undefined;
  #renewing = false;
  #onLost: (lostId: string) => void;

  constructor(redis: Redis, keys: ClusterKeys, leaseMs: number, onLost: (lostId: string) => void) {
    this.#redis = redis;
    this.#keys = keys;
    this.#leaseMs = leaseMs;
    this.#onLost = onLost;
  }

  get instanceId(): string {
    return this.#id;
  }

  get instanceKey(): string {
    return this.#keys.instance(this.#id);
  }

  /** Takes this instance's lease and keeps renewing it until `stop()`. */
  async start(): Promise<void> {
    await this.#redis.set(this.instanceKey, String(Date.now()), "PX", this.#leaseMs);
    this.#timer = setInterval(() => void this.#renew(), Math.max(1, Math.floor(this.#leaseMs / 3)));
    this.#timer.unref();
  }

  /** Stops renewing and deletes the lease (a clean stop: survivors reap what is left at once). */
  async stop(): Promise<void> {
    clearInterval(this.#timer);
    this.#timer = undefined;
    await this.#redis.del(this.instanceKey).catch(() => undefined);
  }

  /**
   * One renewal: PEXPIRE only extends a key that still exists, so an instance that stalled past its lease
   * finds it gone and never revives it (survivors may already have taken its turns). It then joins again
   * under a new id, after `onLost` has stopped everything the old id held.
   */
  async #renew(): Promise<void> {
    if (this.#renewing) return;
    this.#renewing = true;
    try {
      const kept = await this.#redis.pexpire(this.instanceKey, this.#leaseMs);
      if (kept === 1 || this.#timer === undefined) return;
      const lost = this.#id;
      this.#id = newInstanceId();
      this.#onLost(lost);
      await this.#redis.set(this.instanceKey, String(Date.now()), "PX", this.#leaseMs);
    } catch {
      // Redis unreachable: commits are failing (and retried) meanwhile; the next tick tells.
    } finally {
      this.#renewing = false;
    }
  }

  /** Takes a task's turn lease (see BEGIN_TURN_LUA). */
  async begin(taskId: string, runningHere: boolean): Promise<BeginResult> {
    const reply = (await this.#redis.eval(
      BEGIN_TURN_LUA,
      2,
      this.#keys.turns,
      this.#keys.epoch,
      taskId,
      this.#id,
      this.#keys.instancePrefix,
      runningHere ? "1" : "0",
    )) as [number, string?, string?];
    if (reply[0] === 1) return { taken: true, token: reply[1]!, ...(reply[2] ? { previous: reply[2] } : {}) };
    return { taken: false, ...(reply[1] !== undefined && { holder: reply[1] }) };
  }

  async abandon(taskId: string, token: string): Promise<void> {
    await this.#redis.eval(ABANDON_TURN_LUA, 1, this.#keys.turns, taskId, token);
  }

  /** The live instance holding the task's turn lease, if any. */
  async holder(taskId: string): Promise<string | undefined> {
    const token = await this.#redis.hget(this.#keys.turns, taskId);
    if (token === null) return undefined;
    const owner = tokenOwner(token);
    return (await this.isAlive(owner)) ? owner : undefined;
  }

  async isAlive(instanceId: string): Promise<boolean> {
    return (await this.#redis.exists(this.#keys.instance(instanceId))) === 1;
  }

  /** Tasks whose turn lease is held by an instance that is lost (its own lease expired). */
  async orphans(): Promise<string[]> {
    const all = await this.#redis.hgetall(this.#keys.turns);
    const owners = [...new Set(Object.values(all).map(tokenOwner))];
    if (owners.length === 0) return [];
    const pipeline = this.#redis.pipeline();
    for (const owner of owners) pipeline.exists(this.#keys.instance(owner));
    const results = (await pipeline.exec()) ?? [];
    const alive = new Set<string>();
    owners.forEach((owner, i) => {
      if (results[i]?.[1] === 1) alive.add(owner);
    });
    return Object.entries(all)
      .filter(([, token]) => !alive.has(tokenOwner(token)))
      .map(([taskId]) => taskId);
  }
}
