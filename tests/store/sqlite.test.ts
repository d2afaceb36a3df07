import { existsSync, readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "@jest/globals";
import Database from "better-sqlite3";
import type { TaskStore } from "../../router/core/store.js";
import { SqliteStore } from "../../router/store/index.js";
import { runBin, spawnRouter } from "../helpers/spawn-router.js";
import { makeEvent, makeTask, runStoreContract } from "../store.contract.js";

const seqs = (events: Array<{ seq: number }>): number[] => events.map((e) => e.seq);

let dir = "";
let n = 0;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "a2a-sqlite-store-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});
/** Each store gets its own file in a directory that does not exist yet (the store creates it). */
const fileStore = async (): Promise<SqliteStore> => new SqliteStore(join(dir, `nested-${++n}`, "deeper", "router.db"));

runStoreContract("sqlite file", fileStore, undefined, {
  reopen: async (closed) => new SqliteStore((closed as SqliteStore).path),
});
runStoreContract("sqlite :memory:", async () => new SqliteStore(":memory:"));

describe("SqliteStore", () => {
  test("creates the parent directory and uses WAL", async () => {
    const path = join(dir, "fresh", "a", "b", "router.db");
    expect(existsSync(join(dir, "fresh"))).toBe(false);
    const store = new SqliteStore(path);
    expect(existsSync(path)).toBe(true);
    await store.close(); // it holds the file's lock until then
    const probe = new Database(path, { readonly: true });
    try {
      expect(probe.pragma("journal_mode", { simple: true })).toBe("wal");
    } finally {
      probe.close();
    }
  });

  test("a batch that breaks the log's order rolls back entirely (one transaction)", async () => {
    const store = new SqliteStore(":memory:");
    try {
      await store.commit({ tasks: [makeTask("x", { lastSeq: 1 })], events: [makeEvent("x", 1)] });
      // y's task and event are written before x's gap is found: the transaction takes them back.
      const batch = { tasks: [makeTask("y", { lastSeq: 1 })], events: [makeEvent("y", 1), makeEvent("x", 3)] };
      await expect(store.commit(batch)).rejects.toThrow("event seq 3 of task x would leave a gap");
      expect(await store.getTask("y")).toBeUndefined();
      expect(await store.readEvents("y", 0, 10)).toEqual([]);
      expect((await store.readEvents("x", 0, 10)).length).toBe(1);
    } finally {
      await store.close();
    }
  });

  test("one store per file: a second open in this process is refused until the first closes", async () => {
    const path = join(dir, "owned", "router.db");
    const first = new SqliteStore(path);
    try {
      expect(readFileSync(`${path}.pid`, "utf8")).toBe(`${process.pid}\n`);
      expect(() => new SqliteStore(path)).toThrow(`store sqlite:${path} is in use by another a2a-router (pid ${process.pid})`);
      await first.commit({ tasks: [makeTask("t", { lastSeq: 1 })], events: [makeEvent("t", 1)] });
    } finally {
      await first.close();
    }
    expect(existsSync(`${path}.pid`)).toBe(false);
    const second = new SqliteStore(path);
    try {
      expect(seqs(await second.readEvents("t", 0, 10))).toEqual([1]);
    } finally {
      await second.close();
    }
    // Private databases share nothing, so they need no lock.
    const a = new SqliteStore(":memory:");
    const b = new SqliteStore(":memory:");
    await Promise.all([a.close(), b.close()]);
  });

  test("a router process holds its file: a second router is refused with one line, and SIGKILL frees it at once", async () => {
    const path = join(dir, "spawned", "router.db");
    const router = await spawnRouter(["--store", `sqlite:${path}`]);
    try {
      const inUse = `store sqlite:${path} is in use by another a2a-router (pid ${router.child.pid})`;
      expect(() => new SqliteStore(path)).toThrow(inUse);
      const second = await runBin(["serve", "--port", "0", "--store", `sqlite:${path}`]);
      expect(second.code).toBe(1);
      expect(second.stderr).toBe(`a2a-router: ${inUse}\n`);
    } finally {
      await router.kill("SIGKILL");
    }
    // The OS dropped the lock with the process; the stale pid file is simply overwritten.
    const store = new SqliteStore(path);
    try {
      expect(readFileSync(`${path}.pid`, "utf8")).toBe(`${process.pid}\n`);
    } finally {
      await store.close();
    }
  });

  test("an unopenable path fails with a message naming it", () => {
    const blocker = join(dir, "afile");
    const store = new SqliteStore(blocker); // a file where a directory is needed next
    void store.close();
    expect(() => new SqliteStore(join(blocker, "sub", "router.db"))).toThrow(
      `cannot open SQLite store at ${join(blocker, "sub", "router.db")}`,
    );
  });

  test("close is idempotent", async () => {
    const store = new SqliteStore(":memory:");
    await store.close();
    await store.close();
  });
});
