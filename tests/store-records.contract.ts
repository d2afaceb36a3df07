/**
 * The expiring-records part of the store contract (tests/store.contract.ts runs it on every store): a claim
 * stores a record unless one is there and says whose it is, one winner among concurrent claims, expiry, writes
 * and deletes, and (stores whose data persists) records that outlive a reopen.
 */
import { describe, expect, test } from "@jest/globals";
import type { RouterStore } from "../router/store/index.js";
import { range } from "./helpers/store-fixtures.js";
import { until } from "./helpers/until.js";

const DAY = 86_400_000;

/** Runs the records tests, each on a fresh empty store from `fresh` (closed by the caller's suite). */
export function runRecordsContract(fresh: () => Promise<RouterStore>, reopen?: (closed: RouterStore) => Promise<RouterStore>): void {
  describe("expiring records", () => {
    test("a claim stores the record once; later claims get its value, not theirs", async () => {
      const { records } = await fresh();
      expect(await records.read("k")).toBeUndefined();
      expect(await records.claim("k", "first", DAY)).toBeUndefined();
      expect(await records.claim("k", "second", DAY)).toBe("first");
      expect(await records.read("k")).toBe("first");
      expect(await records.claim("other", "x", DAY)).toBeUndefined();
    });

    test("of concurrent claims of one key exactly one wins, and every other sees the winner's value", async () => {
      const { records } = await fresh();
      const answers = await Promise.all(range(1, 12).map((i) => records.claim("race", `v${i}`, DAY)));
      const winners = answers.flatMap((a, i) => (a === undefined ? [`v${i + 1}`] : []));
      expect(winners).toHaveLength(1);
      for (const a of answers) if (a !== undefined) expect(a).toBe(winners[0]);
      expect(await records.read("race")).toBe(winners[0]);
    });

    test("write replaces a record (and its time), undefined deletes it", async () => {
      const { records } = await fresh();
      await records.write("k", "one", DAY);
      expect(await records.read("k")).toBe("one");
      await records.write("k", "two", DAY);
      expect(await records.claim("k", "three", DAY)).toBe("two");
      await records.write("k", undefined, DAY);
      expect(await records.read("k")).toBeUndefined();
      expect(await records.claim("k", "four", DAY)).toBeUndefined();
      // Keys and values are opaque: any characters.
      await records.write("idem:owner:ä/💬 key", '{"d":"x"}', DAY);
      expect(await records.read("idem:owner:ä/💬 key")).toBe('{"d":"x"}');
    });

    test("an expired record is gone: a read misses it and a claim takes the key", async () => {
      const { records } = await fresh();
      expect(await records.claim("short", "old", 30)).toBeUndefined();
      await until(async () => (await records.read("short")) === undefined, 5000);
      expect(await records.claim("short", "new", DAY)).toBeUndefined();
      expect(await records.read("short")).toBe("new");
    });

    test("bad arguments are refused", async () => {
      const { records } = await fresh();
      await expect(records.claim(5 as unknown as string, "v", DAY)).rejects.toThrow(/key/);
      await expect(records.write("k", 5 as unknown as string, DAY)).rejects.toThrow(/value/);
      await expect(records.write("k", "v", -1)).rejects.toThrow(/ttlMs/);
    });

    if (reopen) {
      test("records outlive a reopen of the store", async () => {
        const store = await fresh();
        await store.records.claim("kept", "value", DAY);
        await store.close();
        const again = await reopen(store);
        try {
          expect(await again.records.read("kept")).toBe("value");
          expect(await again.records.claim("kept", "other", DAY)).toBe("value");
        } finally {
          await again.close();
        }
      });
    }
  });
}
