/**
 * The one behaviour suite every TaskStore passes (memory, SQLite, Redis): each tests/store/*.test.ts calls
 * `runStoreContract` with a factory. Every test gets a fresh, empty store from `make()`; the suite closes
 * every store it opened after each test, then calls `dispose` once at the end. The router's stores keep the
 * hosted agents' conversations too, so the MemoryRecordStore contract (memory-store.contract.ts) runs on the
 * same factory.
 */
import { afterAll, afterEach, describe, expect, test } from "@jest/globals";
import type { LoggedEvent, Task, TaskState } from "../router/core/model.js";
import type { RouterStore } from "../router/store/index.js";
import { at, makeEvent, makeTask, range } from "./helpers/store-fixtures.js";
import { runMemoryStoreContract } from "./memory-store.contract.js";
import { runListingContract } from "./store-listing.contract.js";
import { runRecordsContract } from "./store-records.contract.js";

export interface StoreContractOptions {
  /** Opens a new store over the data of `closed` (already closed). Given for stores whose data persists. */
  reopen?: (closed: RouterStore) => Promise<RouterStore>;
}

export { at, makeEvent, makeTask, range } from "./helpers/store-fixtures.js";

const seqs = (events: LoggedEvent[]): number[] => events.map((e) => e.seq);
const ids = (items: Array<{ id: string }>): string[] => items.map((t) => t.id);

export function runStoreContract(name: string, make: () => Promise<RouterStore>, dispose?: () => Promise<void>, options: StoreContractOptions = {}): void {
  describe(`TaskStore contract: ${name}`, () => {
    const opened: RouterStore[] = [];
    const fresh = async (): Promise<RouterStore> => {
      const store = await make();
      opened.push(store);
      return store;
    };
    afterEach(async () => {
      await Promise.all(opened.splice(0).map((s) => s.close()));
    });
    if (dispose) afterAll(dispose);

    test("commit stores tasks and events; unknown ids read as empty", async () => {
      const store = await fresh();
      expect(["memory", "sqlite", "redis"]).toContain(store.kind);
      const a = makeTask("a", { lastSeq: 2, metadata: { nested: { n: 1, list: [1, "two", null] } } });
      const b = makeTask("b", { contextId: "ctx-2" });
      await store.commit({ tasks: [a, b], events: [makeEvent("a", 1), makeEvent("a", 2), makeEvent("b", 1, "ctx-2")] });
      expect(await store.getTask("a")).toEqual(a);
      expect(await store.getTask("b")).toEqual(b);
      expect(await store.readEvents("a", 0, 10)).toEqual([makeEvent("a", 1), makeEvent("a", 2)]);
      expect(await store.readEvents("b", 0, 10)).toEqual([makeEvent("b", 1, "ctx-2")]);
      expect(await store.getTask("nope")).toBeUndefined();
      expect(await store.readEvents("nope", 0, 10)).toEqual([]);
      await store.commit({ tasks: [], events: [] });
    });

    test("a batch that cannot be stored is rejected whole: nothing of it is visible", async () => {
      const store = await fresh();
      const bad = makeTask("bad");
      Object.defineProperty(bad.metadata, "boom", {
        enumerable: true,
        get() {
          throw new Error("unreadable");
        },
      });
      await expect(store.commit({ tasks: [makeTask("good"), bad], events: [makeEvent("good", 1), makeEvent("bad", 1)] })).rejects.toThrow();
      expect(await store.getTask("good")).toBeUndefined();
      expect(await store.readEvents("good", 0, 10)).toEqual([]);
      expect(await store.listTasks({ limit: 10 })).toEqual([]);
      await expect(store.commit({ tasks: [makeTask("t", { updatedAt: "yesterday" })], events: [] })).rejects.toThrow(/updatedAt/);
      expect(await store.getTask("t")).toBeUndefined();
    });

    test("committing the same batch again stores it once (a resent or retried commit is harmless)", async () => {
      const store = await fresh();
      const batch = {
        tasks: [makeTask("a", { lastSeq: 2 }), makeTask("b", { contextId: "ctx-2", lastSeq: 1 })],
        events: [makeEvent("a", 1), makeEvent("a", 2), makeEvent("b", 1, "ctx-2")],
      };
      await store.commit(batch);
      await store.commit(batch);
      await Promise.all([store.commit(batch), store.commit(batch)]);
      expect(await store.readEvents("a", 0, 10)).toEqual([makeEvent("a", 1), makeEvent("a", 2)]);
      expect(await store.readEvents("b", 0, 10)).toEqual([makeEvent("b", 1, "ctx-2")]);
      expect(await store.getTask("a")).toEqual(batch.tasks[0]);
      expect(await store.countTasks({})).toBe(2);
      // A retry carrying what was already stored plus newer events appends only the newer ones.
      const later = makeTask("a", { status: { state: "completed" }, lastSeq: 4, updatedAt: at(1) });
      await store.commit({ tasks: [later], events: [makeEvent("a", 2), makeEvent("a", 3), makeEvent("a", 4)] });
      expect(seqs(await store.readEvents("a", 0, 10))).toEqual([1, 2, 3, 4]);
      expect(await store.getTask("a")).toEqual(later);
      // A seq already stored keeps its stored copy.
      const other = { ...makeEvent("a", 3), status: { state: "failed" as const } };
      await store.commit({ tasks: [], events: [other] });
      expect((await store.readEvents("a", 2, 1))[0]).toEqual(makeEvent("a", 3));
    });

    test("an event that would leave a gap in its log rejects the whole batch: nothing of it is visible", async () => {
      const store = await fresh();
      const x = makeTask("x", { lastSeq: 1 });
      await store.commit({ tasks: [x], events: [makeEvent("x", 1)] });
      const y = makeTask("y", { contextId: "ctx-2", lastSeq: 2 });
      const xAhead = makeTask("x", { status: { state: "completed" }, lastSeq: 3, updatedAt: at(5) });
      const gapped = { tasks: [y, xAhead], events: [makeEvent("y", 1), makeEvent("y", 2), makeEvent("x", 3)] };
      await expect(store.commit(gapped)).rejects.toThrow("event seq 3 of task x would leave a gap: its stored log ends at seq 1");
      expect(await store.getTask("y")).toBeUndefined();
      expect(await store.getTask("x")).toEqual(x);
      expect(await store.readEvents("y", 0, 10)).toEqual([]);
      expect(seqs(await store.readEvents("x", 0, 10))).toEqual([1]);
      expect(ids(await store.listTasks({ limit: 10 }))).toEqual(["x"]);
      expect(ids(await store.listUnfinishedTasks())).toEqual(["x"]);
      // Within a batch too, and a log starts at seq 1.
      await expect(store.commit({ tasks: [], events: [makeEvent("x", 2), makeEvent("x", 4)] })).rejects.toThrow(
        "event seq 4 of task x would leave a gap: its stored log ends at seq 2",
      );
      await expect(store.commit({ tasks: [], events: [makeEvent("z", 2)] })).rejects.toThrow(
        "event seq 2 of task z would leave a gap: its stored log ends at seq 0",
      );
      expect(seqs(await store.readEvents("x", 0, 10))).toEqual([1]);
      expect(await store.readEvents("z", 0, 10)).toEqual([]);
      await expect(store.commit({ tasks: [], events: [{ ...makeEvent("z", 1), seq: 0 }] })).rejects.toThrow(
        "seq of an event of task z must be a positive integer: got 0",
      );
      // The gap closed, the same batch goes through.
      await store.commit({ tasks: [xAhead], events: [makeEvent("x", 2), makeEvent("x", 3)] });
      expect(seqs(await store.readEvents("x", 0, 10))).toEqual([1, 2, 3]);
    });

    test("a log starts with its task: in the same batch, or stored before", async () => {
      const store = await fresh();
      const orphan = { tasks: [makeTask("a", { lastSeq: 1 })], events: [makeEvent("a", 1), makeEvent("b", 1)] };
      await expect(store.commit(orphan)).rejects.toThrow("event seq 1 of task b has no task: a task is committed with its first events");
      expect(await store.getTask("a")).toBeUndefined();
      expect(await store.readEvents("a", 0, 10)).toEqual([]);
      // Stored before, its task needs not come again; nor in the batch that only adds to a started log.
      await store.commit({ tasks: [makeTask("b")], events: [] });
      await store.commit({ tasks: [], events: [makeEvent("b", 1)] });
      await store.commit({ tasks: [], events: [makeEvent("b", 2)] });
      expect(seqs(await store.readEvents("b", 0, 10))).toEqual([1, 2]);
    });

    test("copies on save and on load: callers may mutate what they pass or get", async () => {
      const store = await fresh();
      const task = makeTask("a");
      const event = makeEvent("a", 1);
      const commit = store.commit({ tasks: [task], events: [event] });
      task.status.state = "failed";
      task.history[0].parts.push({ kind: "text", text: "mutated" });
      event.seq = 99;
      await commit;
      const loaded = (await store.getTask("a"))!;
      expect(loaded).toEqual(makeTask("a"));
      loaded.metadata.x = 1;
      loaded.artifacts.push({ artifactId: "x", parts: [] });
      expect(await store.getTask("a")).toEqual(makeTask("a"));
      const [readBack] = await store.readEvents("a", 0, 1);
      expect(readBack).toEqual(makeEvent("a", 1));
      readBack.seq = 7;
      expect(await store.readEvents("a", 0, 1)).toEqual([makeEvent("a", 1)]);
      const [listed] = await store.listTasks({ limit: 1 });
      listed.id = "changed";
      expect(ids(await store.listTasks({ limit: 1 }))).toEqual(["a"]);
    });

    test("commit upserts a task by id", async () => {
      const store = await fresh();
      await store.commit({ tasks: [makeTask("a", { updatedAt: at(1) })], events: [makeEvent("a", 1)] });
      const done = makeTask("a", { status: { state: "completed" }, updatedAt: at(2), lastSeq: 2 });
      await store.commit({ tasks: [done], events: [makeEvent("a", 2)] });
      expect(await store.getTask("a")).toEqual(done);
      expect(ids(await store.listTasks({ limit: 10 }))).toEqual(["a"]);
      expect(await store.listTasks({ state: "working", limit: 10 })).toEqual([]);
      expect(seqs(await store.readEvents("a", 0, 10))).toEqual([1, 2]);
    });

    test("readEvents pages by afterSeq and limit over 1,000 events, in order", async () => {
      const store = await fresh();
      for (let from = 1; from <= 1000; from += 100) {
        const events = range(from, from + 99).map((seq) => makeEvent("big", seq));
        await store.commit({ tasks: [makeTask("big", { lastSeq: from + 99 })], events });
      }
      await store.commit({ tasks: [makeTask("other")], events: [makeEvent("other", 1)] });
      const all = await store.readEvents("big", 0, 1000);
      expect(seqs(all)).toEqual(range(1, 1000));
      expect(all[499]).toEqual(makeEvent("big", 500));
      const paged: number[] = [];
      for (let after = 0; ; ) {
        const page = await store.readEvents("big", after, 128);
        if (page.length === 0) break;
        expect(page.length).toBeLessThanOrEqual(128);
        paged.push(...seqs(page));
        after = page[page.length - 1].seq;
      }
      expect(paged).toEqual(range(1, 1000));
      expect(seqs(await store.readEvents("big", 990, 100))).toEqual(range(991, 1000));
      expect(seqs(await store.readEvents("big", 10, 3))).toEqual([11, 12, 13]);
      expect(await store.readEvents("big", 1000, 10)).toEqual([]);
      expect(await store.readEvents("big", 5, 0)).toEqual([]);
      expect(seqs(await store.readEvents("other", 0, 10))).toEqual([1]);
      await expect(store.readEvents("big", -1, 10)).rejects.toThrow(/afterSeq/);
      await expect(store.readEvents("big", 0, 1.5)).rejects.toThrow(/limit/);
    });

    test("concurrent commits all land", async () => {
      const store = await fresh();
      await Promise.all(range(1, 20).map((i) => store.commit({ tasks: [makeTask(`c${i}`)], events: [makeEvent(`c${i}`, 1)] })));
      expect((await store.listTasks({ limit: 100 })).length).toBe(20);
      for (const i of range(1, 20)) expect(seqs(await store.readEvents(`c${i}`, 0, 5))).toEqual([1]);
    });

    runListingContract(fresh);
    runRecordsContract(fresh, options.reopen);

    test("listUnfinishedTasks returns the tasks not in a terminal state, following upserts", async () => {
      const store = await fresh();
      const unfinished: TaskState[] = ["submitted", "working", "input-required", "auth-required"];
      const states: TaskState[] = [...unfinished, "completed", "canceled", "failed", "rejected"];
      const withState = (id: string, state: TaskState, t: number): Task => makeTask(id, { status: { state }, updatedAt: at(t) });
      await store.commit({ tasks: states.map((state, i) => withState(state, state, i)), events: [] });
      expect(ids(await store.listUnfinishedTasks()).sort()).toEqual([...unfinished].sort());
      const changed = [withState("working", "completed", 20), withState("failed", "working", 21)];
      await store.commit({ tasks: changed, events: [] });
      expect(ids(await store.listUnfinishedTasks()).sort()).toEqual(["auth-required", "failed", "input-required", "submitted"]);
      const [first] = await store.listUnfinishedTasks();
      first.status.state = "completed";
      expect((await store.listUnfinishedTasks()).length).toBe(4);
    });

    test("push configs: keyed by (task, id ?? default), set replaces, ordered by id, deletable", async () => {
      const store = await fresh();
      const noId = { url: "http://127.0.0.1:1/hook", token: "t0" };
      await store.setPushConfig("t", noId);
      expect(await store.getPushConfigs("t")).toEqual([noId]);
      await store.setPushConfig("t", { id: "b", url: "http://127.0.0.1:1/b" });
      const a = { id: "a", url: "http://127.0.0.1:1/a", authentication: { schemes: ["Bearer"], credentials: "c" } };
      await store.setPushConfig("t", a);
      await store.setPushConfig("t", { id: "default", url: "http://127.0.0.1:1/replaced" });
      await store.setPushConfig("other", { id: "b", url: "http://127.0.0.1:1/other" });
      const b2 = { id: "b", url: "http://127.0.0.1:1/b2" };
      const pending = store.setPushConfig("t", b2);
      b2.url = "mutated";
      await pending;
      const configs = await store.getPushConfigs("t");
      const replaced = { id: "default", url: "http://127.0.0.1:1/replaced" };
      expect(configs).toEqual([a, { id: "b", url: "http://127.0.0.1:1/b2" }, replaced]);
      configs[0].url = "mutated";
      expect((await store.getPushConfigs("t"))[0]).toEqual(a);
      await store.deletePushConfig("t", "default");
      await store.deletePushConfig("t", "missing");
      await store.deletePushConfig("missing", "a");
      expect(ids((await store.getPushConfigs("t")) as Array<{ id: string }>)).toEqual(["a", "b"]);
      expect(await store.getPushConfigs("other")).toEqual([{ id: "b", url: "http://127.0.0.1:1/other" }]);
      expect(await store.getPushConfigs("none")).toEqual([]);
    });

    test("a key that is not a string is refused before it is stored: what was stored stays readable", async () => {
      const store = await fresh();
      const good = { id: "a", url: "http://127.0.0.1:1/a" };
      await store.setPushConfig("t", good);
      // An array spread into a Redis HSET would write fields of its own; SQLite would fail to bind it.
      const bad = ["x", "completed", "y"] as unknown as string;
      await expect(store.setPushConfig("t", { id: bad, url: "http://127.0.0.1:1/b" })).rejects.toThrow("config.id must be a string: got array");
      await expect(store.setPushConfig({} as unknown as string, good)).rejects.toThrow("taskId must be a string: got object");
      await expect(store.deletePushConfig("t", bad)).rejects.toThrow("configId must be a string");
      await expect(store.getPushConfigs(5 as unknown as string)).rejects.toThrow("taskId must be a string: got number");
      expect(await store.getPushConfigs("t")).toEqual([good]);
    });

    const reopen = options.reopen;
    if (reopen) {
      test("data survives closing and reopening, and the log continues", async () => {
        const store = await fresh();
        const task = makeTask("p", { status: { state: "input-required" }, lastSeq: 3 });
        await store.commit({ tasks: [task], events: range(1, 3).map((s) => makeEvent("p", s)) });
        await store.setPushConfig("p", { url: "http://127.0.0.1:1/hook" });
        await store.close();
        const again = await reopen(store);
        opened.push(again);
        expect(again.kind).toBe(store.kind);
        expect(await again.getTask("p")).toEqual(task);
        expect(ids(await again.listUnfinishedTasks())).toEqual(["p"]);
        expect(await again.getPushConfigs("p")).toEqual([{ url: "http://127.0.0.1:1/hook" }]);
        await again.commit({ tasks: [{ ...task, lastSeq: 4 }], events: [makeEvent("p", 4)] });
        expect(seqs(await again.readEvents("p", 2, 10))).toEqual([3, 4]);
      });
    }
  });
  runMemoryStoreContract(name, make, options);
}
