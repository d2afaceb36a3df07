import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, test } from "@jest/globals";
import { Redis } from "ioredis";
import { Leases, tokenOwner } from "../../router/cluster/lease.js";
import { clusterKeys } from "../../router/store/cluster-keys.js";
import { deleteKeys, REDIS_URL, redisReachable, START_REDIS } from "../helpers/redis.js";
import { until } from "./helpers.js";

/** The lease primitives against a real Redis, in process: who may take a turn, and when an instance is lost. */
const reachable = await redisReachable();
const prefix = `a2a-router-test:leases:${randomUUID()}:`;
const keys = clusterKeys(prefix);

if (!reachable) {
  describe("cluster leases", () => {
    test("needs Redis", () => {
      if (process.env.CI === "true") throw new Error(`Redis is unreachable: ${START_REDIS}`);
      process.stderr.write(`cluster lease tests skipped: Redis is unreachable; ${START_REDIS}\n`);
    });
  });
} else {
  describe("cluster leases", () => {
    let redis: Redis;
    const started: Leases[] = [];
    /** A started instance lease; `lost` hears of its loss. */
    const instance = async (lost: (id: string) => void = () => {}, leaseMs = 10_000) => {
      const l = new Leases(redis, keys, leaseMs, lost);
      await l.start();
      started.push(l);
      return l;
    };
    beforeAll(() => {
      redis = new Redis(REDIS_URL);
    });
    afterAll(async () => {
      await Promise.all(started.map((l) => l.stop()));
      await deleteKeys(prefix);
      await redis.quit();
    });

    test("a turn lease is taken once while its holder lives; a lost holder's is taken over, naming it", async () => {
      const [a, b] = [await instance(), await instance()];
      const first = await a.begin("t1", false);
      expect(first).toMatchObject({ taken: true });
      const token = (first as { token: string }).token;
      expect(tokenOwner(token)).toBe(a.instanceId);
      expect(await b.begin("t1", false)).toEqual({ taken: false, holder: a.instanceId });
      // The holder itself, running it, is refused too (a second turn on one task).
      expect(await a.begin("t1", true)).toEqual({ taken: false, holder: a.instanceId });
      expect(await b.holder("t1")).toBe(a.instanceId);
      expect(await b.orphans()).toEqual([]);
      // A's lease expires (what SIGKILL or a freeze leads to): its turn is an orphan, and B may take it.
      await redis.del(keys.instance(a.instanceId));
      expect(await b.orphans()).toEqual(["t1"]);
      expect(await b.holder("t1")).toBeUndefined();
      const taken = await b.begin("t1", false);
      expect(taken).toMatchObject({ taken: true, previous: token });
      expect(await b.orphans()).toEqual([]);
    });

    test("abandon gives a lease back only if it is still the given one", async () => {
      const a = await instance();
      const got = (await a.begin("t2", false)) as { token: string };
      await a.abandon("t2", "someone|1");
      expect(await redis.hget(keys.turns, "t2")).toBe(got.token);
      await a.abandon("t2", got.token);
      expect(await redis.hexists(keys.turns, "t2")).toBe(0);
    });

    test("an instance whose lease expired finds out at its next renewal, rejoins under a new id and takes nothing meanwhile", async () => {
      let lostId: string | undefined;
      const noticed = new Promise<void>((resolve) => {
        void instance((id) => {
          lostId = id;
          resolve();
        }, 300).then(async (a) => {
          const before = a.instanceId;
          await redis.del(keys.instance(before));
          // Until the renewal tick notices, its own lease is gone: it may not take a turn.
          const refused = await a.begin("t3", false);
          if (!lostId) expect(refused).toEqual({ taken: false });
        });
      });
      await noticed;
      const a = started.at(-1)!;
      expect(a.instanceId).not.toBe(lostId);
      // The new lease is taken right after the loss was reported.
      await until(() => a.isAlive(a.instanceId), "the new lease");
      expect(await a.isAlive(lostId!)).toBe(false);
    });
  });
}
