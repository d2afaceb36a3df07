import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "@jest/globals";
import { MemoryStore, RedisStore, SqliteStore, openStore, parseStoreSpec } from "../../router/store/index.js";

let dir = "";
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "a2a-open-store-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("parseStoreSpec", () => {
  test("accepts memory, sqlite:PATH and redis(s) URLs", () => {
    expect(parseStoreSpec("memory")).toEqual({ kind: "memory" });
    expect(parseStoreSpec("sqlite:./data/router.db")).toEqual({ kind: "sqlite", path: "./data/router.db" });
    expect(parseStoreSpec("sqlite::memory:")).toEqual({ kind: "sqlite", path: ":memory:" });
    expect(parseStoreSpec("redis://127.0.0.1:6379/2")).toEqual({ kind: "redis", url: "redis://127.0.0.1:6379/2" });
    expect(parseStoreSpec("rediss://u:p@cache:6380")).toEqual({ kind: "redis", url: "rediss://u:p@cache:6380" });
  });

  test.each(["Memory", "sqlite:", "sqlite", "redis://", "mysql://h/db", "./router.db", "memory "])("rejects %j with one line naming it", (bad) => {
    expect(() => parseStoreSpec(bad)).toThrow(`--store must be memory, sqlite:PATH or redis://...: got ${bad}`);
  });

  test.each(["redis://127.0.0.1:6379/abc", "redis://127.0.0.1:6379/7x", "redis://127.0.0.1:6379/1.5"])(
    "rejects a redis database that is not a number: %j",
    (bad) => {
      expect(() => parseStoreSpec(bad)).toThrow(/the database must be a number/);
    },
  );

  test("names an empty value visibly", () => {
    expect(() => parseStoreSpec("")).toThrow('--store must be memory, sqlite:PATH or redis://...: got ""');
  });
});

describe("openStore", () => {
  test("opens each kind", async () => {
    const memory = await openStore("memory");
    expect(memory).toBeInstanceOf(MemoryStore);
    await memory.close();

    const path = join(dir, "new-dir", "router.db");
    const sqlite = await openStore(`sqlite:${path}`);
    expect(sqlite).toBeInstanceOf(SqliteStore);
    expect(existsSync(path)).toBe(true);
    await sqlite.close();

    const url = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";
    const redis = await openStore(url, { prefix: "a2a-router-test:open:" });
    expect(redis).toBeInstanceOf(RedisStore);
    expect(redis.kind).toBe("redis");
    await redis.close();
  });

  test("rejects a bad spec and an unreachable Redis with clear messages", async () => {
    await expect(openStore("postgres://x")).rejects.toThrow("--store must be memory, sqlite:PATH or redis://...: got postgres://x");
    const unreachable = /^cannot connect to Redis at redis:\/\/127\.0\.0\.1:1/;
    await expect(openStore("redis://127.0.0.1:1")).rejects.toThrow(unreachable);
  });
});
