/**
 * The listing part of the TaskStore contract (tests/store.contract.ts runs it on every store): ListTasks'
 * order, filters, (updatedAt, id) cursor paging and counts, and listings that follow upserts.
 */
import { describe, expect, test } from "@jest/globals";
import type { TaskState } from "../router/core/model.js";
import type { ListTasksQuery, TaskCursor, TaskStore } from "../router/core/store.js";
import type { RouterStore } from "../router/store/index.js";
import { at, makeTask, range } from "./helpers/store-fixtures.js";

const ids = (items: Array<{ id: string }>): string[] => items.map((t) => t.id);

/** Runs the listing tests, each on a fresh empty store from `fresh` (closed by the caller's suite). */
export function runListingContract(fresh: () => Promise<RouterStore>): void {
  describe("listTasks", () => {
    const seed = async (store: TaskStore): Promise<void> => {
      const rows: Array<[string, string, string, TaskState, number]> = [
        ["a", "ctx-1", "echo", "working", 1],
        ["b", "ctx-1", "eliza", "completed", 2],
        ["c", "ctx-2", "echo", "completed", 3],
        ["d", "ctx-2", "eliza", "input-required", 4],
        ["e", "ctx-1", "echo", "failed", 5],
        ["f", "ctx-3", "echo", "working", 6],
        ["g", "ctx-3", "echo", "working", 6],
      ];
      const tasks = rows.map(([id, contextId, agentId, state, t]) => makeTask(id, { contextId, agentId, status: { state }, updatedAt: at(t) }));
      await store.commit({ tasks, events: [] });
    };

    test("newest first, ties by id descending, limited", async () => {
      const store = await fresh();
      await seed(store);
      expect(ids(await store.listTasks({ limit: 100 }))).toEqual(["g", "f", "e", "d", "c", "b", "a"]);
      expect(ids(await store.listTasks({ limit: 3 }))).toEqual(["g", "f", "e"]);
      expect(await store.listTasks({ limit: 0 })).toEqual([]);
    });

    test("filters by contextId, state and agentId, alone and together", async () => {
      const store = await fresh();
      await seed(store);
      expect(ids(await store.listTasks({ contextId: "ctx-1", limit: 10 }))).toEqual(["e", "b", "a"]);
      expect(ids(await store.listTasks({ state: "completed", limit: 10 }))).toEqual(["c", "b"]);
      expect(ids(await store.listTasks({ agentId: "echo", limit: 10 }))).toEqual(["g", "f", "e", "c", "a"]);
      expect(ids(await store.listTasks({ agentId: "echo", contextId: "ctx-1", limit: 10 }))).toEqual(["e", "a"]);
      expect(ids(await store.listTasks({ agentId: "echo", state: "working", limit: 2 }))).toEqual(["g", "f"]);
      const all3 = { contextId: "ctx-1", agentId: "echo", state: "failed", limit: 10 };
      expect(ids(await store.listTasks(all3))).toEqual(["e"]);
      expect(await store.listTasks({ contextId: "nope", limit: 10 })).toEqual([]);
    });

    test("filters by owner, alone, with a context and through pages; a task without an owner is nobody's", async () => {
      const store = await fresh();
      // Two keys' tasks interleaved in time, two of them at the same millisecond, and tasks made without a key.
      const owned = range(1, 9).map((i) =>
        makeTask(`k${i}`, { owner: i % 2 ? "key-a" : "key-b", contextId: i <= 4 ? "ctx-1" : "ctx-2", updatedAt: at(i === 9 ? 8 : i) }),
      );
      const keyless = [makeTask("x1", { updatedAt: at(3) }), makeTask("x2", { contextId: "ctx-2", updatedAt: at(7) })];
      await store.commit({ tasks: [...owned, ...keyless], events: [] });
      expect(ids(await store.listTasks({ owner: "key-a", limit: 10 }))).toEqual(["k9", "k7", "k5", "k3", "k1"]);
      expect(ids(await store.listTasks({ owner: "key-b", contextId: "ctx-1", limit: 10 }))).toEqual(["k4", "k2"]);
      expect((await allPages(store, { owner: "key-a", limit: 2 })).flat()).toEqual(["k9", "k7", "k5", "k3", "k1"]);
      expect(await store.countTasks({ owner: "key-a" })).toBe(5);
      expect(await store.countTasks({ owner: "key-b", contextId: "ctx-2" })).toBe(2);
      expect(await store.listTasks({ owner: "nobody", limit: 10 })).toEqual([]);
      // A task that changes hands is listed under its new owner only.
      await store.commit({ tasks: [makeTask("k1", { owner: "key-b", contextId: "ctx-1", updatedAt: at(10) })], events: [] });
      expect(ids(await store.listTasks({ owner: "key-b", limit: 2 }))).toEqual(["k1", "k8"]);
      expect(await store.countTasks({ owner: "key-a" })).toBe(4);
    });

    /** Every page of a listing, each from the previous page's last task, until a short page. */
    const allPages = async (store: TaskStore, query: Omit<ListTasksQuery, "before">): Promise<string[][]> => {
      const pages: string[][] = [];
      let before: TaskCursor | undefined;
      for (;;) {
        const page = await store.listTasks({ ...query, before });
        if (page.length > 0) pages.push(ids(page));
        if (page.length < query.limit) return pages;
        const last = page[page.length - 1];
        before = { updatedAt: last.updatedAt, id: last.id };
      }
    };

    test("the (updatedAt, id) cursor starts strictly after its task, ties included", async () => {
      const store = await fresh();
      await seed(store);
      const pageAfter = async (t: number, id: string, limit = 10): Promise<string[]> => ids(await store.listTasks({ before: { updatedAt: at(t), id }, limit }));
      expect(await pageAfter(6, "g")).toEqual(["f", "e", "d", "c", "b", "a"]);
      expect(await pageAfter(6, "f")).toEqual(["e", "d", "c", "b", "a"]);
      expect(await pageAfter(6, "fz")).toEqual(["f", "e", "d", "c", "b", "a"]); // need not name a stored task
      expect(await pageAfter(6, "zz", 2)).toEqual(["g", "f"]);
      expect(await pageAfter(5, "e")).toEqual(["d", "c", "b", "a"]);
      expect(await pageAfter(1, "a")).toEqual([]);
      expect(ids(await store.listTasks({ before: { updatedAt: at(6), id: "g" }, contextId: "ctx-3", limit: 5 }))).toEqual(["f"]);
      // The same instant written another way is the same cursor: times compare as milliseconds.
      const sameInstant = at(6).replace(".000Z", "+00:00");
      expect(ids(await store.listTasks({ before: { updatedAt: sameInstant, id: "g" }, limit: 1 }))).toEqual(["f"]);
    });

    test("paging by the cursor returns everything exactly once, in order, at any page size", async () => {
      const store = await fresh();
      await seed(store);
      expect(await allPages(store, { limit: 2 })).toEqual([["g", "f"], ["e", "d"], ["c", "b"], ["a"]]);
      for (const limit of [1, 3, 7]) {
        expect((await allPages(store, { limit })).flat()).toEqual(["g", "f", "e", "d", "c", "b", "a"]);
      }
      expect((await allPages(store, { agentId: "echo", limit: 1 })).flat()).toEqual(["g", "f", "e", "c", "a"]);
    });

    test("tasks sharing one updatedAt millisecond page through exactly once", async () => {
      const store = await fresh();
      const burst = range(0, 19).map((i) => makeTask(`t${String(i).padStart(2, "0")}`, { updatedAt: at(10) }));
      const older = makeTask("older", { updatedAt: at(9) });
      const other = makeTask("other-ctx", { contextId: "ctx-2", updatedAt: at(10) });
      await store.commit({ tasks: [older, ...burst, other], events: [] });
      const expected = ids(burst).reverse();
      const pages = await allPages(store, { contextId: "ctx-1", limit: 3 });
      expect(pages.map((p) => p.length)).toEqual([3, 3, 3, 3, 3, 3, 3]);
      expect(pages.flat()).toEqual([...expected, "older"]);
      expect((await allPages(store, { limit: 3 })).flat()).toEqual([...expected, "other-ctx", "older"]);
    });

    test("ids with the same updatedAt sort by code point (UTF-8 byte order), and page alike", async () => {
      const store = await fresh();
      const names = ["a", "z", "\uFFFD", "\u{1F600}", "\u{1F600}x", "é"];
      await store.commit({ tasks: names.map((id) => makeTask(id, { updatedAt: at(3) })), events: [] });
      const order = ["\u{1F600}x", "\u{1F600}", "\uFFFD", "é", "z", "a"];
      expect(ids(await store.listTasks({ limit: 10 }))).toEqual(order);
      expect((await allPages(store, { limit: 1 })).flat()).toEqual(order);
    });

    test("a bad cursor or limit is rejected naming the field", async () => {
      const store = await fresh();
      await seed(store);
      await expect(store.listTasks({ before: { updatedAt: "not a time", id: "a" }, limit: 1 })).rejects.toThrow(/before\.updatedAt/);
      const noId = { updatedAt: at(1) } as unknown as TaskCursor;
      await expect(store.listTasks({ before: noId, limit: 1 })).rejects.toThrow(/before\.id/);
      await expect(store.listTasks({ limit: -1 })).rejects.toThrow(/limit/);
    });

    test("countTasks counts every task matching the filters, over all pages", async () => {
      const store = await fresh();
      expect(await store.countTasks({})).toBe(0);
      await seed(store);
      expect(await store.countTasks({})).toBe(7);
      expect(await store.countTasks({ contextId: "ctx-1" })).toBe(3);
      expect(await store.countTasks({ state: "completed" })).toBe(2);
      expect(await store.countTasks({ agentId: "echo" })).toBe(5);
      expect(await store.countTasks({ agentId: "echo", contextId: "ctx-1" })).toBe(2);
      expect(await store.countTasks({ agentId: "echo", state: "working" })).toBe(3);
      expect(await store.countTasks({ contextId: "ctx-1", agentId: "echo", state: "failed" })).toBe(1);
      expect(await store.countTasks({ contextId: "nope" })).toBe(0);
      // A listing query counts as its filters: the cursor and limit do not narrow the count.
      const query = { agentId: "echo", before: { updatedAt: at(6), id: "g" }, limit: 1 };
      expect(await store.countTasks(query)).toBe(5);
    });

    test("statusSinceMs keeps tasks whose status timestamp is at or after it (updatedAt when it has none)", async () => {
      const store = await fresh();
      await store.commit({
        tasks: [
          // Status set at 2 s, but an artifact arrived at 9 s: the status time decides, not updatedAt.
          makeTask("early", { status: { state: "working", timestamp: at(2) }, updatedAt: at(9) }),
          // An agent's own timestamp in another ISO form: 4 s.
          makeTask("offset", { status: { state: "working", timestamp: at(4).replace(".000Z", "+00:00") }, updatedAt: at(4) }),
          makeTask("late", { status: { state: "completed", timestamp: at(6) }, updatedAt: at(6), contextId: "ctx-2" }),
          // No status timestamp: judged by updatedAt (5 s).
          makeTask("bare", { status: { state: "working" }, updatedAt: at(5) }),
        ],
        events: [],
      });
      const since = (n: number) => Date.parse(at(n));
      expect(ids(await store.listTasks({ statusSinceMs: since(4), limit: 10 }))).toEqual(["late", "bare", "offset"]);
      expect(await store.countTasks({ statusSinceMs: since(4) })).toBe(3);
      expect(ids(await store.listTasks({ statusSinceMs: since(4), limit: 1, before: { updatedAt: at(6), id: "late" } }))).toEqual(["bare"]);
      expect(ids(await store.listTasks({ statusSinceMs: since(5), state: "working", limit: 10 }))).toEqual(["bare"]);
      expect(await store.countTasks({ statusSinceMs: since(5), contextId: "ctx-2" })).toBe(1);
      expect(ids(await store.listTasks({ statusSinceMs: since(0), limit: 10 }))).toEqual(["early", "late", "bare", "offset"]);
      expect(await store.listTasks({ statusSinceMs: since(7), limit: 10 })).toEqual([]);
      expect(await store.countTasks({ statusSinceMs: since(7) })).toBe(0);
    });

    test("countTasks follows upserts: a task that changes state counts under its new state only", async () => {
      const store = await fresh();
      await seed(store);
      const a = (await store.getTask("a"))!;
      await store.commit({ tasks: [{ ...a, status: { state: "completed" }, updatedAt: at(7) }], events: [] });
      expect(await store.countTasks({ state: "working" })).toBe(2);
      expect(await store.countTasks({ state: "completed" })).toBe(3);
      expect(await store.countTasks({ state: "completed", agentId: "echo" })).toBe(2);
      expect(await store.countTasks({})).toBe(7);
    });

    test("a task that moves to another context or agent is listed only under the new one", async () => {
      const store = await fresh();
      const before = makeTask("m", { contextId: "old", agentId: "x", updatedAt: at(1) });
      await store.commit({ tasks: [before], events: [] });
      await store.commit({ tasks: [{ ...before, contextId: "new", agentId: "y", updatedAt: at(2) }], events: [] });
      expect(await store.listTasks({ contextId: "old", limit: 10 })).toEqual([]);
      expect(await store.listTasks({ agentId: "x", limit: 10 })).toEqual([]);
      expect(ids(await store.listTasks({ contextId: "new", agentId: "y", limit: 10 }))).toEqual(["m"]);
      expect(await store.countTasks({ contextId: "old" })).toBe(0);
      expect(await store.countTasks({ agentId: "x" })).toBe(0);
      expect(await store.countTasks({ contextId: "new", agentId: "y" })).toBe(1);
      expect(await store.countTasks({})).toBe(1);
    });
  });
}
