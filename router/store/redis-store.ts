import { once } from "node:events";
import { Redis } from "ioredis";
import type { Logger } from "pino";
import type { LoggedEvent, PushNotificationConfig, Task } from "../core/model.js";
import { TURN_END_STATES } from "../core/model.js";
import type { CommitBatch, CommitResult, ListTasksFilter, ListTasksQuery, MemoryRecord, MemoryRecordStore, TaskStore } from "../core/store.js";
import { RedisRecords } from "./expiring-records.js";
import { RedisOwnerKey } from "./redis-owner.js";
import { fillOwnerSets } from "./redis-owner-sets.js";
import { ADD_MEMORY_LUA, COMMIT_LUA, type CommitScript } from "./redis-scripts.js";
import { eventJson, noteEventBytes } from "../core/event-bytes.js";
import { silentLogger } from "../observability/logger.js";
import { clusterKeys, type ClusterKeys, type CommitFence } from "./cluster-keys.js";
import {
  fitting,
  checkCount,
  checkKey,
  checkListQuery,
  checkSeq,
  isAfterCursor,
  isUnfinished,
  matchesFilters,
  newestFirst,
  pushConfigId,
  timeMs,
} from "./common.js";

export interface RedisStoreOptions {
  /** Prepended to every key, so several routers (or test runs) can share one Redis. Default "a2a-router:". */
  prefix?: string;
  /**
   * How long the `<prefix>owner` key outlives its last refresh (it is refreshed every third of this), so how
   * long a router that died without closing keeps the next one out. Default 15 000 ms.
   */
  ownerTtlMs?: number;
  /** Where losing or retaking the owner key is reported. Default: nowhere. */
  logger?: Pick<Logger, "warn" | "error">;
  /**
   * Whether `connect()` takes the owner key (one router per store). Routers that share the store as a
   * cluster (router/cluster) pass false: they fence each other's writes per turn instead. Default true.
   */
  exclusive?: boolean;
}

const DEFAULTS: Required<RedisStoreOptions> = { prefix: "a2a-router:", ownerTtlMs: 15_000, logger: silentLogger(), exclusive: true };

/** ioredis states in which a socket is open or opening. */
export const LIVE_STATES: ReadonlySet<string> = new Set(["connecting", "connect", "ready"]);

/** Reconnect back-off: `times * RETRY_STEP_MS`, capped. */
const RETRY_STEP_MS = 50;
const RETRY_MAX_MS = 2000;

/** Tasks fetched per round trip while listTasks filters beyond what its index narrows. */
const LIST_CHUNK = 200;

/**
 * A TaskStore in Redis (ioredis). `new RedisStore(url, { prefix })`; `redis://` and `rediss://` URLs.
 *
 * Layout under the prefix: `task:<id>` JSON string; `tasks` sorted set by updatedAt (ms), plus
 * `tasks:ctx:<contextId>`, `tasks:agent:<agentId>`, `tasks:state:<state>` and `tasks:owner:<owner>` for the
 * filters (the owner sets once `tasks:owner-indexed` says the tasks of earlier routers are in them too), and
 * `taskmeta` hash (id -> where the task is indexed); `unfinished` set of task ids; `events:<taskId>` list where seq n is
 * index n-1 (readEvents is one LRANGE); `push:<taskId>` hash by config id; `memories` hash by id and
 * `room:<roomId>` sorted set by createdAt. Needs Redis 7 or newer (countTasks uses ZINTERCARD).
 *
 * Shared or exclusive. With `exclusive: false` (what `startRouter` uses) any number of routers share the store
 * as one cluster: `setFence` makes every commit check turn leases (router/cluster) and announce its appends on
 * `<prefix>cluster:log:<taskId>`; the `<prefix>cluster:*` keys are the cluster's (store/cluster-keys.ts).
 *
 * Exclusive (the default), one router per store (Redis URL, database and prefix): `connect()` takes the key
 * `<prefix>owner` (SET NX with a TTL, `ownerTtlMs`, 15 s by default) and a timer renews it every third of that
 * TTL until `close()`, which
 * deletes it. While another live router holds it, `connect()` fails with "store redis://... (prefix P) is in
 * use by another a2a-router; it frees itself 15 s after that router stops". A router killed without closing
 * (SIGKILL, a crash) keeps the next one out until its key expires, at most one TTL. Losing the key to another
 * router (after this one could not renew it for a whole TTL) is logged as an error. A store used without
 * `connect()` takes no key.
 *
 * A commit is one Lua script (COMMIT_LUA), atomic like a MULTI/EXEC, and idempotent: ioredis resends a
 * command left unanswered by a dropped connection, and the commit queue retries a batch whose outcome it did
 * not hear, so the same batch can run twice; its events are stored once. Every method serializes its input
 * before its first await, so callers may mutate what they passed as soon as the call returns. Push configs come
 * back ordered by config id; adding a memory whose id is already stored is a no-op.
 */
export class RedisStore implements TaskStore, MemoryRecordStore {
  readonly kind = "redis" as const;
  readonly url: string;
  readonly prefix: string;
  #redis: Redis;
  #commitScript: CommitScript;
  #lastError: Error | undefined;
  #failFast = false;
  #ownerTtlMs: number;
  /** One router per store (exclusive stores): taken by `connect()`, released by `close()`. */
  #owner: RedisOwnerKey;
  #exclusive: boolean;
  #fence: CommitFence | undefined;
  #clusterKeys: ClusterKeys;
  /** Every task with an owner is in its owner's set (`connect()` made sure): listings by owner read that set. */
  #ownersIndexed = false;
  /** Expiring records (idempotency keys, chat sessions): `record:<key>` keys. */
  readonly records: RedisRecords;

  constructor(url: string, options: RedisStoreOptions = {}) {
    const opts = { ...DEFAULTS, ...options };
    if (!Number.isSafeInteger(opts.ownerTtlMs) || opts.ownerTtlMs < 3) {
      throw new RangeError(`ownerTtlMs must be an integer of at least 3: got ${String(opts.ownerTtlMs)}`);
    }
    this.url = url;
    this.prefix = opts.prefix;
    this.#ownerTtlMs = opts.ownerTtlMs;
    this.#exclusive = opts.exclusive;
    this.#clusterKeys = clusterKeys(opts.prefix);
    // Lazy, so `connect()` can report a bad address at start-up; any command connects on its own too.
    this.#redis = new Redis(url, {
      lazyConnect: true,
      // Named, so an operator's CLIENT LIST tells which process a connection belongs to.
      connectionName: `a2a-router:${process.pid}`,
      // Fail fast while `connect()` runs (a reconnect timer would outlive the failure); back off later.
      retryStrategy: (times) => (this.#failFast ? null : Math.min(times * RETRY_STEP_MS, RETRY_MAX_MS)),
    });
    // Without a listener ioredis prints every failed reconnect; commands still fail with their own error.
    this.#redis.on("error", (err: Error) => (this.#lastError = err));
    this.#redis.defineCommand("a2aRouterCommit", { numberOfKeys: 0, lua: COMMIT_LUA });
    const commands = this.#redis as unknown as Record<"a2aRouterCommit", CommitScript>;
    this.#commitScript = commands.a2aRouterCommit.bind(this.#redis);
    this.records = new RedisRecords(this.#redis, opts.prefix);
    this.#owner = new RedisOwnerKey(this.#redis, {
      key: `${opts.prefix}owner`,
      ttlMs: opts.ownerTtlMs,
      where: { store: redactUrl(url), prefix: opts.prefix },
      log: opts.logger,
    });
  }

  /**
   * Connects now, selects the URL's database and takes the owner key, failing with one line naming the
   * (password-free) URL when Redis cannot be reached, has no such database, or another router holds the key.
   */
  async connect(): Promise<void> {
    this.#failFast = true;
    this.#lastError = undefined;
    try {
      // Already connecting (a command came first): the ping waits for that connection instead.
      if (this.#redis.status === "wait" || this.#redis.status === "end") await this.#redis.connect();
      await this.#redis.ping();
    } catch (err) {
      await this.close();
      const reason = (this.#lastError ?? (err as Error)).message;
      throw new Error(`cannot connect to Redis at ${redactUrl(this.url)}: ${reason}`, { cause: err });
    } finally {
      this.#failFast = false;
    }
    // ioredis selects the URL's database itself, but when that fails it only emits an error and carries on
    // in database 0: select again and stop here instead.
    const db = this.#redis.options.db ?? 0;
    try {
      await this.#redis.select(db);
    } catch (err) {
      await this.close();
      throw new Error(`cannot use database ${db} of Redis at ${redactUrl(this.url)}: ${(err as Error).message}`, {
        cause: err,
      });
    }
    if (this.#exclusive) await this.#takeOwnership();
    try {
      await fillOwnerSets(this.#redis, (...parts) => this.#key(...parts), LIST_CHUNK);
    } catch (err) {
      await this.close();
      throw new Error(`cannot index the task owners of Redis at ${redactUrl(this.url)}: ${(err as Error).message}`, { cause: err });
    }
    this.#ownersIndexed = true;
  }

  /** The keys routers sharing this store coordinate with (router/cluster). */
  get clusterKeys(): ClusterKeys {
    return this.#clusterKeys;
  }

  /**
   * From now on, fences every commit (router/cluster): a task's writes that carry a lease token land only
   * while that lease is the task's current one and the instance holding it is alive; `commit` reports the rest.
   */
  setFence(fence: CommitFence): void {
    this.#fence = fence;
  }

  async commit(batch: CommitBatch): Promise<CommitResult | void> {
    // Everything is serialized (and every updatedAt checked) before anything is sent: all or nothing.
    const fence = this.#fence;
    const argv: string[] = [this.prefix, String(batch.tasks.length), this.clusterKeys.instancePrefix, fence ? "1" : "0"];
    for (const t of batch.tasks) {
      const ms = String(timeMs("updatedAt", t.updatedAt));
      const token = fence?.token(t.id) ?? "";
      const ended = TURN_END_STATES.has(t.status.state) ? "1" : "0";
      argv.push(t.id, ms, t.contextId, t.agentId, t.status.state, isUnfinished(t) ? "1" : "0", JSON.stringify(t), token, ended, t.owner ?? "");
    }
    const logs = new Map<string, { seqs: string[]; jsons: string[] }>();
    for (const e of batch.events) {
      checkSeq(e.taskId, e.seq);
      let log = logs.get(e.taskId);
      if (!log) logs.set(e.taskId, (log = { seqs: [], jsons: [] }));
      log.seqs.push(String(e.seq));
      log.jsons.push(eventJson(e));
    }
    if (batch.tasks.length === 0 && logs.size === 0) return;
    for (const [taskId, { seqs, jsons }] of logs) argv.push(taskId, String(seqs.length), ...seqs, ...jsons);
    let fenced: string[];
    try {
      fenced = (await this.#commitScript(...argv)) as string[];
    } catch (err) {
      throw new Error(`Redis commit failed: ${(err as Error).message}`, { cause: err });
    }
    return fenced.length > 0 ? { fenced } : undefined;
  }

  async getTask(id: string): Promise<Task | undefined> {
    checkKey("taskId", id);
    const json = await this.#redis.get(this.#key("task", id));
    return json === null ? undefined : (JSON.parse(json) as Task);
  }

  async readEvents(taskId: string, afterSeq: number, limit: number, maxBytes?: number): Promise<LoggedEvent[]> {
    checkKey("taskId", taskId);
    checkCount("afterSeq", afterSeq);
    checkCount("limit", limit);
    if (limit === 0) return [];
    // seq n sits at index n-1, so the events after afterSeq start at index afterSeq.
    let jsons = await this.#redis.lrange(this.#key("events", taskId), afterSeq, afterSeq + limit - 1);
    // Trimmed before parsing: what is past the byte budget is dropped as strings, never built as objects.
    if (maxBytes === undefined) return jsons.map((json) => JSON.parse(json) as LoggedEvent);
    jsons = jsons.slice(
      0,
      fitting(
        jsons.map((j) => j.length),
        maxBytes,
      ),
    );
    return jsons.map((json) => {
      const event = JSON.parse(json) as LoggedEvent;
      noteEventBytes(event, json.length);
      return event;
    });
  }

  async listTasks(query: ListTasksQuery): Promise<Task[]> {
    const cursor = checkListQuery(query);
    const [index = this.#key("tasks")] = this.#filterIndexes(query);
    // Inclusive: tasks sharing the cursor's millisecond are sorted out by id below.
    const max = cursor === undefined ? "+inf" : String(cursor.ms);
    const out: Task[] = [];
    for (let offset = 0; out.length < query.limit; offset += LIST_CHUNK) {
      const ids = await this.#redis.zrevrangebyscore(index, max, "-inf", "LIMIT", offset, LIST_CHUNK);
      // Every filter is checked on the task itself too: an index written before `taskmeta` may be stale.
      for (const t of await this.#getTasks(ids)) {
        const inRange = cursor === undefined || isAfterCursor(t, cursor);
        if (inRange && matchesFilters(t, query) && out.push(t) === query.limit) break;
      }
      if (ids.length < LIST_CHUNK) break;
    }
    return out;
  }

  /**
   * Exact without reading any task for the equality filters: COMMIT_LUA keeps every index to exactly the
   * tasks it names. A status-time or owner filter is checked on each task of the narrowest index (owners
   * have no index: keys are few and a listing is almost always narrowed by context or agent as well).
   */
  async countTasks(filter: ListTasksFilter): Promise<number> {
    const indexes = this.#filterIndexes(filter);
    const byReading = filter.statusSinceMs !== undefined || (filter.owner !== undefined && !this.#ownersIndexed);
    if (byReading) return this.#countByReading(indexes[0] ?? this.#key("tasks"), filter);
    if (indexes.length === 0) return this.#redis.zcard(this.#key("tasks"));
    if (indexes.length === 1) return this.#redis.zcard(indexes[0]);
    return this.#redis.zintercard(indexes.length, ...indexes);
  }

  /** Oldest update first. */
  async listUnfinishedTasks(): Promise<Task[]> {
    const ids = await this.#redis.smembers(this.#key("unfinished"));
    const tasks = (await this.#getTasks(ids)).filter(isUnfinished);
    return tasks.sort((a, b) => newestFirst(b, a));
  }

  async setPushConfig(taskId: string, config: PushNotificationConfig): Promise<void> {
    checkKey("taskId", taskId);
    const json = JSON.stringify(config);
    await this.#redis.hset(this.#key("push", taskId), pushConfigId(config), json);
  }

  /** Ordered by config id. */
  async getPushConfigs(taskId: string): Promise<PushNotificationConfig[]> {
    checkKey("taskId", taskId);
    const byId = await this.#redis.hgetall(this.#key("push", taskId));
    return Object.keys(byId)
      .sort()
      .map((id) => JSON.parse(byId[id]) as PushNotificationConfig);
  }

  async deletePushConfig(taskId: string, configId: string): Promise<void> {
    checkKey("taskId", taskId);
    checkKey("configId", configId);
    await this.#redis.hdel(this.#key("push", taskId), configId);
  }

  async addMemory(memory: MemoryRecord): Promise<void> {
    const json = JSON.stringify(memory);
    const keys = [this.#key("memories"), this.#key("room", memory.roomId), this.#key("memories:seq")];
    await this.#redis.eval(ADD_MEMORY_LUA, keys.length, ...keys, memory.id, String(memory.createdAt), json);
  }

  async listMemories(roomId: string, limit?: number): Promise<MemoryRecord[]> {
    if (limit !== undefined) checkCount("limit", limit);
    if (limit === 0) return [];
    const members = await this.#redis.zrange(this.#key("room", roomId), limit === undefined ? 0 : -limit, "-1");
    if (members.length === 0) return [];
    const ids = members.map((m) => m.slice(m.indexOf(":") + 1));
    const jsons = await this.#redis.hmget(this.#key("memories"), ...ids);
    return jsons.flatMap((json) => (json === null ? [] : [JSON.parse(json) as MemoryRecord]));
  }

  /** Gives up the owner key and quits gracefully when connected; resolves once no socket or timer is left. */
  async close(): Promise<void> {
    // Deleted now, so the next router need not wait for the TTL; when Redis is unreachable, it expires.
    await this.#owner.release();
    const redis = this.#redis;
    if (redis.status === "end" || redis.status === "wait") return;
    // Waiting to reconnect: disconnect() clears the timer but emits no "end" (and ioredis arms a 2 s guard
    // timer for the already-closed socket, so exit may lag that long; only on close during an outage).
    if (!LIVE_STATES.has(redis.status)) return redis.disconnect();
    const ended = once(redis, "end");
    if (redis.status === "ready") await redis.quit().catch(() => redis.disconnect());
    else redis.disconnect();
    await ended;
  }

  #key(...parts: string[]): string {
    return this.prefix + parts.join(":");
  }

  /** Takes the owner key (once per store); fails, closing the store, when another router holds it. */
  async #takeOwnership(): Promise<void> {
    let taken: "ok" | "held";
    try {
      taken = await this.#owner.take();
    } catch (err) {
      await this.close();
      throw new Error(`cannot connect to Redis at ${redactUrl(this.url)}: ${(err as Error).message}`, { cause: err });
    }
    if (taken === "held") {
      await this.close();
      throw new Error(
        `store ${redactUrl(this.url)} (prefix ${this.prefix}) is in use by another a2a-router; ` +
          `it frees itself ${this.#ownerTtlMs / 1000} s after that router stops`,
      );
    }
  }

  /** Counts the tasks of `index` that pass `filter`, reading them in chunks (for filters no index holds). */
  async #countByReading(index: string, filter: ListTasksFilter): Promise<number> {
    let n = 0;
    for (let offset = 0; ; offset += LIST_CHUNK) {
      const ids = await this.#redis.zrevrangebyscore(index, "+inf", "-inf", "LIMIT", offset, LIST_CHUNK);
      for (const t of await this.#getTasks(ids)) if (matchesFilters(t, filter)) n++;
      if (ids.length < LIST_CHUNK) return n;
    }
  }

  /** The index sets of the filters a query sets, narrowest first (a context is usually the smallest set). */
  #filterIndexes(filter: ListTasksFilter): string[] {
    const out: string[] = [];
    if (filter.contextId !== undefined) out.push(this.#key("tasks:ctx", filter.contextId));
    if (filter.owner !== undefined && this.#ownersIndexed) out.push(this.#key("tasks:owner", filter.owner));
    if (filter.agentId !== undefined) out.push(this.#key("tasks:agent", filter.agentId));
    if (filter.state !== undefined) out.push(this.#key("tasks:state", filter.state));
    return out;
  }

  async #getTasks(ids: string[]): Promise<Task[]> {
    if (ids.length === 0) return [];
    const jsons = await this.#redis.mget(ids.map((id) => this.#key("task", id)));
    return jsons.flatMap((json) => (json === null ? [] : [JSON.parse(json) as Task]));
  }
}

/** The URL without user name or password, for error messages. */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    u.username = "";
    u.password = "";
    return u.toString();
  } catch {
    return "the given Redis URL";
  }
}
