/**
 * The task stores: memory, SQLite and Redis, all behind router/core/store.ts's TaskStore (and its
 * MemoryRecordStore, for the hosted agents' conversations), and `openStore`, which turns a `--store` value into
 * an open store.
 *
 * One router per SQLite file: its exclusive lock (freed by the OS the moment its process ends, even by SIGKILL)
 * keeps a second router out. A Redis store is shared: `startRouter` opens it with `exclusive: false` and any
 * number of routers on one database and prefix serve one task space (router/cluster fences their writes per
 * turn). A RedisStore opened with the default `exclusive: true` still takes the `<prefix>owner` key (freed on
 * close, or up to 15 s after its holder died) and refuses a store in use. `memory` and `sqlite::memory:` are
 * private to the process.
 */
import type { ExpiringRecordStore, MemoryRecordStore, TaskStore } from "../core/store.js";
import { MemoryStore } from "./memory-store.js";
import { RedisStore, type RedisStoreOptions } from "./redis-store.js";
import { SqliteStore } from "./sqlite-store.js";

export { MemoryStore } from "./memory-store.js";
export { SqliteStore } from "./sqlite-store.js";
export { RedisStore, type RedisStoreOptions } from "./redis-store.js";

/** What `openStore` opens: tasks, conversations and expiring records (idempotency, chat sessions) in one place. */
export type RouterStore = TaskStore & MemoryRecordStore & { readonly records: ExpiringRecordStore };

/** A parsed `--store` value. */
export type StoreSpec = { kind: "memory" } | { kind: "sqlite"; path: string } | { kind: "redis"; url: string };

const SQLITE_PREFIX = "sqlite:";

/**
 * Parses `memory`, `sqlite:PATH` (PATH may be `:memory:`) or a `redis://` / `rediss://` URL.
 * Anything else throws one line naming the bad value.
 */
export function parseStoreSpec(spec: string): StoreSpec {
  if (spec === "memory") return { kind: "memory" };
  if (spec.startsWith(SQLITE_PREFIX) && spec.length > SQLITE_PREFIX.length) {
    return { kind: "sqlite", path: spec.slice(SQLITE_PREFIX.length) };
  }
  if (/^rediss?:\/\/./.test(spec)) {
    let path: string;
    try {
      path = new URL(spec).pathname;
    } catch {
      throw new Error(`--store must be memory, sqlite:PATH or redis://...: ${spec} is not a URL`);
    }
    if (!/^\/?\d*$/.test(path)) throw new Error(`--store redis URL: the database must be a number, as in redis://host:6379/0: got "${path.slice(1)}"`);
    return { kind: "redis", url: spec };
  }
  throw new Error(`--store must be memory, sqlite:PATH or redis://...: got ${spec === "" ? '""' : spec}`);
}

/**
 * Opens the store a `--store` value names. A Redis store is connected (database selected, owner key taken)
 * before this resolves, so an unreachable server, a missing database or a store in use fails at start-up with
 * one line; `redis` options (key prefix, owner TTL, logger) apply to Redis only.
 */
export async function openStore(spec: string, redis: RedisStoreOptions = {}): Promise<RouterStore> {
  const parsed = parseStoreSpec(spec);
  switch (parsed.kind) {
    case "memory":
      return new MemoryStore();
    case "sqlite":
      return SqliteStore.open(parsed.path);
    case "redis": {
      const store = new RedisStore(parsed.url, redis);
      await store.connect();
      return store;
    }
  }
}
