/**
 * The stores' expiring records (router/core/store.ts ExpiringRecordStore), each store's `records`: in process
 * memory, in the SQLite file (through the store's writer thread) and in Redis.
 */
import type { Redis } from "ioredis";
import type { ExpiringRecordStore } from "../core/store.js";
import { checkKey, checkRecord } from "./common.js";
import { CLAIM_RECORD_LUA } from "./redis-scripts.js";

/**
 * Records in a Map. An expired record is dropped when its key is next touched, and all of them by a sweep once
 * the map has doubled since the last one, so a busy router's map stays near the number of live records.
 */
export class MemoryRecords implements ExpiringRecordStore {
  #records = new Map<string, { value: string; expiresAt: number }>();
  #sweepAt = 1024;

  /** The read and the write in one synchronous step: no other claim runs between them. */
  async claim(key: string, value: string, ttlMs: number): Promise<string | undefined> {
    checkRecord(key, value, ttlMs);
    const held = this.#live(key);
    if (held === undefined) this.#set(key, value, ttlMs);
    return held;
  }

  async read(key: string): Promise<string | undefined> {
    checkKey("key", key);
    return this.#live(key);
  }

  async write(key: string, value: string | undefined, ttlMs: number): Promise<void> {
    checkRecord(key, value, ttlMs);
    if (value === undefined) this.#records.delete(key);
    else this.#set(key, value, ttlMs);
  }

  #live(key: string): string | undefined {
    const record = this.#records.get(key);
    if (!record) return undefined;
    if (record.expiresAt > Date.now()) return record.value;
    this.#records.delete(key);
    return undefined;
  }

  #set(key: string, value: string, ttlMs: number): void {
    this.#records.set(key, { value, expiresAt: Date.now() + ttlMs });
    if (this.#records.size >= this.#sweepAt) this.#sweep();
  }

  #sweep(): void {
    const now = Date.now();
    for (const [key, record] of this.#records) if (record.expiresAt <= now) this.#records.delete(key);
    this.#sweepAt = Math.max(1024, this.#records.size * 2);
  }
}

/** A call to the SQLite store's writer thread (SqliteTables' record methods), as the store makes it. */
export type WriterCall = (op: "claimRecord" | "readRecord" | "writeRecord", ...args: unknown[]) => Promise<unknown>;

/**
 * Records in the SQLite file's `records` table, every call on the writer thread: one writer per file, so a
 * claim's read and write cannot interleave with another's. Times are the caller's clock, in epoch ms.
 */
export class SqliteRecords implements ExpiringRecordStore {
  readonly #call: WriterCall;

  constructor(call: WriterCall) {
    this.#call = call;
  }

  async claim(key: string, value: string, ttlMs: number): Promise<string | undefined> {
    checkRecord(key, value, ttlMs);
    const now = Date.now();
    return ((await this.#call("claimRecord", key, value, now, now + ttlMs)) as string | undefined) ?? undefined;
  }

  async read(key: string): Promise<string | undefined> {
    checkKey("key", key);
    return ((await this.#call("readRecord", key, Date.now())) as string | undefined) ?? undefined;
  }

  async write(key: string, value: string | undefined, ttlMs: number): Promise<void> {
    checkRecord(key, value, ttlMs);
    const now = Date.now();
    await this.#call("writeRecord", key, value, now + ttlMs, now);
  }
}

/** Records as Redis keys `<prefix>record:<key>` with Redis's own expiry (PX); a claim is one script, one winner cluster-wide. */
export class RedisRecords implements ExpiringRecordStore {
  readonly #redis: Redis;
  readonly #prefix: string;

  constructor(redis: Redis, prefix: string) {
    this.#redis = redis;
    this.#prefix = `${prefix}record:`;
  }

  async claim(key: string, value: string, ttlMs: number): Promise<string | undefined> {
    checkRecord(key, value, ttlMs);
    const held = (await this.#redis.eval(CLAIM_RECORD_LUA, 1, this.#prefix + key, value, String(Math.max(1, ttlMs)))) as string | null;
    return held ?? undefined;
  }

  async read(key: string): Promise<string | undefined> {
    checkKey("key", key);
    return (await this.#redis.get(this.#prefix + key)) ?? undefined;
  }

  async write(key: string, value: string | undefined, ttlMs: number): Promise<void> {
    checkRecord(key, value, ttlMs);
    if (value === undefined) await this.#redis.del(this.#prefix + key);
    else await this.#redis.set(this.#prefix + key, value, "PX", Math.max(1, ttlMs));
  }
}
