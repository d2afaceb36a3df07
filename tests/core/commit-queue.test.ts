import { describe, expect, test } from "@jest/globals";
import { CommitQueue, type AbandonedWrites } from "../../router/core/commit-queue.js";
import type { LoggedEvent, Task } from "../../router/core/model.js";
import type { CommitBatch } from "../../router/core/store.js";
import { configFromEnv, resolveConfig } from "../../router/config/load.js";
import { silentLogger } from "../../router/observability/logger.js";
import { SchemaRegistry } from "../../router/schema/validator.js";
import { MemoryStore } from "../../router/store/index.js";

/** The commit queue's failure isolation, against a memory store whose commits fail for chosen tasks. */

function task(id: string): Task {
  const now = new Date().toISOString();
  return {
    id,
    contextId: "c",
    agentId: "a",
    dialect: "v0.1",
    status: { state: "working", timestamp: now },
    artifacts: [],
    history: [],
    metadata: {},
    createdAt: now,
    updatedAt: now,
    lastSeq: 0,
  };
}

function event(taskId: string, seq: number): LoggedEvent {
  return { kind: "status", status: { state: "working" }, final: false, taskId, contextId: "c", seq };
}

/** A memory store whose commit throws while `failing` names a task of the batch; it records every batch. */
function faultyStore() {
  const store = new MemoryStore();
  const failing = new Set<string>();
  const batches: CommitBatch[] = [];
  const faulty = Object.assign(Object.create(store) as MemoryStore, {
    commit: async (b: CommitBatch) => {
      batches.push(b);
      if (b.tasks.some((t) => failing.has(t.id))) throw new Error("simulated store failure");
      await store.commit(b);
    },
  });
  return { store, faulty, failing, batches };
}

function queue(store: MemoryStore, retryMs: number) {
  const committed: string[] = [];
  const abandoned: AbandonedWrites[] = [];
  const q = new CommitQueue(store, {
    onCommitted: (events) => committed.push(...events.map((e) => `${e.taskId}:${e.seq}`)),
    onAbandoned: (lost) => abandoned.push(lost),
    log: silentLogger(),
    retryMs,
  });
  return { q, committed, abandoned };
}

describe("CommitQueue failure isolation", () => {
  test("one task's failing writes hold nobody else up, and are given up on after retryMs", async () => {
    const { store, faulty, failing, batches } = faultyStore();
    const { q, committed, abandoned } = queue(faulty, 200);
    failing.add("bad");
    const good = task("good");
    const bad = task("bad");
    q.add(good, event("good", 1));
    q.add(bad, event("bad", 1));
    q.add(good, event("good", 2));
    expect(await q.flushed("good")).toBe(true);
    expect(committed).toEqual(["good:1", "good:2"]);
    // While "bad" is retried on its own, "good" goes on committing one batch per tick.
    const before = batches.length;
    q.add(good, event("good", 3));
    q.add(bad, event("bad", 2));
    expect(await q.flushed("good")).toBe(true);
    expect(batches.slice(before).filter((b) => b.tasks.some((t) => t.id === "good"))).toHaveLength(1);
    expect(await q.flushed("bad")).toBe(false);
    expect(abandoned).toHaveLength(1);
    expect(abandoned[0]!.taskId).toBe("bad");
    expect(abandoned[0]!.events.map((e) => e.seq)).toEqual([1, 2]);
    expect(abandoned[0]!.attempts).toBeGreaterThan(1);
    expect(committed).toEqual(["good:1", "good:2", "good:3"]);
    expect((await store.readEvents("good", 0, 10)).map((e) => e.seq)).toEqual([1, 2, 3]);
    expect(await store.readEvents("bad", 0, 10)).toEqual([]);
    expect(await q.flushed()).toBe(true);
  });

  test("a failure that clears within retryMs loses nothing and keeps each task's order", async () => {
    const { store, faulty, failing } = faultyStore();
    const { q, committed, abandoned } = queue(faulty, 10_000);
    failing.add("flaky");
    const flaky = task("flaky");
    const other = task("other");
    q.add(flaky, event("flaky", 1));
    q.add(other, event("other", 1));
    await q.flushed("other");
    // Added while the failed ones are retried: they must land after them.
    q.add(flaky, event("flaky", 2));
    q.add(flaky, event("flaky", 3));
    const done = q.flushed("flaky");
    await new Promise((r) => setTimeout(r, 120));
    expect(committed).toEqual(["other:1"]);
    failing.delete("flaky");
    expect(await done).toBe(true);
    q.add(flaky, event("flaky", 4));
    expect(await q.flushed()).toBe(true);
    expect(abandoned).toEqual([]);
    expect(committed.filter((c) => c.startsWith("flaky"))).toEqual(["flaky:1", "flaky:2", "flaky:3", "flaky:4"]);
    expect((await store.readEvents("flaky", 0, 10)).map((e) => e.seq)).toEqual([1, 2, 3, 4]);
  });

  test("the normal path is one commit per tick, however many tasks", async () => {
    const { faulty, batches } = faultyStore();
    const { q } = queue(faulty, 1000);
    for (let t = 0; t < 20; t++) for (let s = 1; s <= 5; s++) q.add(task(`t${t}`), event(`t${t}`, s));
    expect(await q.flushed()).toBe(true);
    expect(batches).toHaveLength(1);
    expect(batches[0]!.events).toHaveLength(100);
  });

  test("config: limits.commitRetryMs defaults to 30000, env COMMIT_RETRY_MS, a positive integer", () => {
    const schemas = new SchemaRegistry();
    expect(resolveConfig(schemas, {}).limits.commitRetryMs).toBe(30_000);
    expect(resolveConfig(schemas, { file: { limits: { commitRetryMs: 500 } } }).limits.commitRetryMs).toBe(500);
    expect(resolveConfig(schemas, { env: configFromEnv({ COMMIT_RETRY_MS: "1500" }) }).limits.commitRetryMs).toBe(1500);
    expect(() => resolveConfig(schemas, { file: { limits: { commitRetryMs: 0 } } })).toThrow(/commitRetryMs/);
  });
});
