import { randomUUID } from "node:crypto";
import { afterAll, describe, expect, jest, test } from "@jest/globals";
import { Redis } from "ioredis";
import { RedisStore, type RedisStoreOptions } from "../../router/store/index.js";
import { redactUrl } from "../../router/store/redis-store.js";
import { at, makeEvent, makeTask, range, runStoreContract } from "../store.contract.js";

const URL = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";
/** Unique per run; every store of this file lives under it and is deleted afterwards. */
const RUN = `a2a-router-test:${randomUUID()}:`;
let n = 0;

/** Deletes every key this run wrote (in the URL's database). */
async function deleteRunKeys(url = URL): Promise<void> {
  const redis = new Redis(url);
  try {
    let cursor = "0";
    do {
      const [next, keys] = await redis.scan(cursor, "MATCH", `${RUN}*`, "COUNT", 500);
      if (keys.length) await redis.del(...keys);
      cursor = next;
    } while (cursor !== "0");
  } finally {
    await redis.quit();
  }
}

// Top level, so it runs after every describe of this file (the contract's own dispose would run too early).
afterAll(() => deleteRunKeys());

/** A connected store (so it holds its prefix's owner key, as a router's does). */
async function connected(prefix: string, options: RedisStoreOptions = {}): Promise<RedisStore> {
  const store = new RedisStore(URL, { prefix, ...options });
  await store.connect();
  return store;
}

runStoreContract("redis", () => connected(`${RUN}${++n}:`), undefined, {
  reopen: (closed) => connected((closed as RedisStore).prefix),
});

/** Resolves once `check` holds, polling Redis (for what only time changes: a key's expiry). */
async function until(check: () => Promise<boolean>, what: string, deadlineMs = 5000): Promise<void> {
  const deadline = Date.now() + deadlineMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** A logger that records each warn and error message, and resolves waiters when a matching one arrives. */
function recordingLogger() {
  const lines: Array<{ level: "warn" | "error"; msg: string }> = [];
  const waiters: Array<{ re: RegExp; resolve: () => void }> = [];
  const log = (level: "warn" | "error") => (_obj: unknown, msg: string) => {
    lines.push({ level, msg });
    for (const w of waiters.splice(0)) {
      if (w.re.test(`${level} ${msg}`)) w.resolve();
      else waiters.push(w);
    }
  };
  const logger = { warn: log("warn"), error: log("error") } as unknown as RedisStoreOptions["logger"];
  const next = (re: RegExp) => new Promise<void>((resolve) => waiters.push({ re, resolve }));
  return { lines, logger, next };
}

describe("RedisStore", () => {
  const redis = new Redis(URL);
  afterAll(async () => {
    await redis.quit();
  });

  test("keeps each task's log as a list where seq n is index n-1", async () => {
    const store = new RedisStore(URL, { prefix: `${RUN}layout:` });
    try {
      await store.commit({ tasks: [makeTask("t")], events: [makeEvent("t", 1), makeEvent("t", 2)] });
      const second = await redis.lindex(`${RUN}layout:events:t`, 1);
      expect(JSON.parse(second!)).toEqual(makeEvent("t", 2));
      expect(await redis.sismember(`${RUN}layout:unfinished`, "t")).toBe(1);
    } finally {
      await store.close();
    }
  });

  test("connect() names the URL, without its password, when Redis cannot be reached", async () => {
    const store = new RedisStore("redis://user:s3cret@127.0.0.1:1");
    const err = (await store.connect().catch((e: unknown) => e)) as Error;
    expect(err.message).toMatch(/^cannot connect to Redis at redis:\/\/127\.0\.0\.1:1\/?: .*ECONNREFUSED/);
    expect(err.message).not.toContain("s3cret");
    await store.close();
  });

  test("close without ever connecting opens nothing", async () => {
    await new RedisStore(URL, { prefix: `${RUN}idle:` }).close();
  });

  test("a key's tasks stored before the owner sets are put in them at connect; its listing then reads only them", async () => {
    const prefix = `${RUN}owners:`;
    const first = await connected(prefix);
    const tasks = range(1, 600).map((i) => makeTask(`t${i}`, { owner: i % 200 === 0 ? "key-a" : "key-b", updatedAt: at(i) }));
    await first.commit({ tasks, events: [] });
    await first.close();
    // What a router before the owner sets left behind: none of them, no mark, taskmeta naming no owner.
    await redis.del(`${prefix}tasks:owner:key-a`, `${prefix}tasks:owner:key-b`, `${prefix}tasks:owner-indexed`);
    await redis.hset(`${prefix}taskmeta`, Object.fromEntries(tasks.map((t) => [t.id, JSON.stringify([t.contextId, t.agentId, t.status.state])])));
    const store = await connected(prefix);
    const mget = jest.spyOn(Redis.prototype, "mget");
    try {
      expect((await store.listTasks({ owner: "key-a", limit: 10 })).map((t) => t.id)).toEqual(["t600", "t400", "t200"]);
      expect(await store.countTasks({ owner: "key-a" })).toBe(3);
      expect(await store.countTasks({ owner: "key-b", state: "working" })).toBe(597);
      // One round trip for the key's own three tasks; not the 600 the listing read before the sets.
      expect(mget.mock.calls.map(([keys]) => (keys as unknown as string[]).length)).toEqual([3]);
      // A task of the old layout committed again lands in its owner's set once.
      await store.commit({ tasks: [makeTask("t200", { owner: "key-a", status: { state: "completed" }, updatedAt: at(700) })], events: [] });
      expect(await redis.zrange(`${prefix}tasks:owner:key-a`, "0", "-1")).toEqual(["t400", "t600", "t200"]);
    } finally {
      mget.mockRestore();
      await store.close();
    }
  });

  test("a task that is not JSON stops connect() with one line naming its key, before the store is used", async () => {
    const prefix = `${RUN}owners-bad:`;
    await redis.zadd(`${prefix}tasks`, 1, "broken");
    await redis.set(`${prefix}task:broken`, "{not json");
    const store = new RedisStore(URL, { prefix });
    await expect(store.connect()).rejects.toThrow(`cannot index the task owners of Redis at ${redactUrl(URL)}: task:broken does not hold a task's JSON`);
    expect(await redis.exists(`${prefix}tasks:owner-indexed`, `${prefix}owner`)).toBe(0);
  });

  describe("fenced commits (routers sharing a store)", () => {
    test("a task's writes land only under its current turn lease, held by a live instance; the rest is reported", async () => {
      const prefix = `${RUN}fence:`;
      const store = new RedisStore(URL, { prefix, exclusive: false });
      const keys = store.clusterKeys;
      const tokens = new Map<string, string>([
        ["mine", "inst-a|1"],
        ["stolen", "inst-a|2"],
        ["dead", "inst-b|3"],
      ]);
      store.setFence({ token: (id) => tokens.get(id) });
      try {
        await store.connect();
        expect(await redis.exists(`${prefix}owner`)).toBe(0);
        await redis.set(keys.instance("inst-a"), "1", "PX", 10_000);
        await redis.hset(keys.turns, "mine", "inst-a|1", "stolen", "inst-c|9", "dead", "inst-b|3");
        const result = await store.commit({
          tasks: [makeTask("mine"), makeTask("stolen"), makeTask("dead"), makeTask("free")],
          events: [makeEvent("mine", 1), makeEvent("stolen", 1), makeEvent("dead", 1), makeEvent("free", 1)],
        });
        // "stolen": another instance holds its lease now; "dead": its instance's lease expired.
        expect(result).toEqual({ fenced: ["stolen", "dead"] });
        expect(await store.getTask("stolen")).toBeUndefined();
        expect(await store.readEvents("dead", 0, 10)).toEqual([]);
        expect(await store.readEvents("mine", 0, 10)).toEqual([makeEvent("mine", 1)]);
        expect(await store.readEvents("free", 0, 10)).toEqual([makeEvent("free", 1)]);
        // A write that ends the turn drops its lease in the same step.
        await store.commit({ tasks: [makeTask("mine", { status: { state: "completed" }, lastSeq: 1 })], events: [] });
        expect(await redis.hexists(keys.turns, "mine")).toBe(0);
        expect(await redis.hget(keys.turns, "stolen")).toBe("inst-c|9");
      } finally {
        await store.close();
      }
    });
  });

  describe("one router per prefix", () => {
    const inUse = (prefix: string, seconds: number): string =>
      `store ${redactUrl(URL)} (prefix ${prefix}) is in use by another a2a-router; it frees itself ${seconds} s after that router stops`;

    test("a second store on the prefix is refused while the first holds it (renewed past its TTL); close frees it", async () => {
      const prefix = `${RUN}own-a:`;
      // TTLs of a second or more: a loaded machine must not let a renewed key lapse between renewals.
      const first = await connected(prefix, { ownerTtlMs: 1000 });
      try {
        expect(await redis.get(`${prefix}owner`)).toMatch(new RegExp(`:${process.pid}:`));
        await expect(connected(prefix)).rejects.toThrow(inUse(prefix, 15));
        // Two and a half TTLs later the key is still there: the timer renews it (time passing is the point).
        await new Promise((r) => setTimeout(r, 2500));
        expect(await redis.pttl(`${prefix}owner`)).toBeGreaterThan(0);
        await expect(connected(prefix, { ownerTtlMs: 1000 })).rejects.toThrow(inUse(prefix, 1));
        // Another prefix is another store.
        await (await connected(`${RUN}own-b:`)).close();
      } finally {
        await first.close();
      }
      expect(await redis.exists(`${prefix}owner`)).toBe(0);
      await (await connected(prefix)).close();
    });

    test("the key of a router that died without closing keeps the next one out until it expires", async () => {
      const prefix = `${RUN}own-dead:`;
      // What a router killed with SIGKILL leaves: its key, no longer renewed.
      await redis.set(`${prefix}owner`, "elsewhere:4242:dead", "PX", 60_000);
      await expect(connected(prefix)).rejects.toThrow(inUse(prefix, 15));
      // Its TTL runs out (shortened here rather than waited for): the store is free again.
      await redis.pexpire(`${prefix}owner`, 50);
      await until(async () => (await redis.exists(`${prefix}owner`)) === 0, "the dead router's key to expire");
      const next = await connected(prefix);
      await next.close();
    });

    test("losing the key to another router is logged as an error; getting it back, as a warning", async () => {
      const prefix = `${RUN}own-lost:`;
      const { lines, logger, next } = recordingLogger();
      // A TTL with room for a loaded machine: the renewed key must not lapse between two renewals.
      const store = await connected(prefix, { ownerTtlMs: 1000, logger });
      try {
        // Its key expired (say, a long outage) and another router took the store.
        const lost = next(/^error LOST OWNERSHIP/);
        await redis.set(`${prefix}owner`, "elsewhere:4242:other", "PX", 10_000);
        await lost;
        // That router stopped: the next renewal takes the key again.
        const regained = next(/^warn store ownership regained/);
        await redis.del(`${prefix}owner`);
        await regained;
        expect(await redis.get(`${prefix}owner`)).toMatch(new RegExp(`:${process.pid}:`));
        // Expired while nobody else took it: retaken with a warning.
        const retaken = next(/^warn store owner key had expired/);
        await redis.del(`${prefix}owner`);
        await retaken;
        expect(lines.map((l) => l.level)).toEqual(["error", "warn", "warn"]);
      } finally {
        await store.close();
      }
      expect(await redis.exists(`${prefix}owner`)).toBe(0);
    });

    test("a bad ownerTtlMs is refused naming the option", () => {
      expect(() => new RedisStore(URL, { ownerTtlMs: 0 })).toThrow("ownerTtlMs must be an integer of at least 3: got 0");
    });
  });

  describe("database index", () => {
    test("a database Redis does not have fails connect() with one line instead of falling back to 0", async () => {
      const url = new globalThis.URL(URL);
      url.pathname = "/99";
      const store = new RedisStore(url.toString());
      const err = (await store.connect().catch((e: unknown) => e)) as Error;
      expect(err.message).toBe(`cannot use database 99 of Redis at ${redactUrl(url.toString())}: ERR DB index is out of range`);
      await store.close();
    });

    test("the URL's database is the one written", async () => {
      const url = new globalThis.URL(URL);
      url.pathname = "/3";
      const prefix = `${RUN}db3:`;
      const store = new RedisStore(url.toString(), { prefix });
      const db3 = new Redis(url.toString());
      try {
        await store.connect();
        await store.commit({ tasks: [makeTask("t")], events: [makeEvent("t", 1)] });
        expect(await db3.exists(`${prefix}task:t`, `${prefix}owner`)).toBe(2);
        expect(await redis.exists(`${prefix}task:t`)).toBe(0);
      } finally {
        await store.close();
        await db3.quit();
        await deleteRunKeys(url.toString());
      }
    });
  });
});
