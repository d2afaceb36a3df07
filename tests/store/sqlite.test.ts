import { existsSync, readFileSync, statSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "@jest/globals";
import Database from "better-sqlite3";
import { SqliteStore } from "../../router/store/index.js";
import { restartFlag } from "../../router/store/sqlite-protocol.js";
import { SqliteTables } from "../../router/store/sqlite-tables.js";
import { runBin, spawnRouter } from "../helpers/spawn-router.js";
import { makeEvent, makeTask, runStoreContract } from "../store.contract.js";
import { until } from "../helpers/until.js";

const seqs = (events: Array<{ seq: number }>): number[] => events.map((e) => e.seq);

/** `count` commits of one event of about `bytes` each, one after the other (each awaited, none batched). */
async function writeEvents(store: SqliteStore, taskId: string, count: number, bytes: number): Promise<void> {
  const text = "x".repeat(bytes);
  for (let seq = 1; seq <= count; seq++) {
    const event = makeEvent(taskId, seq);
    event.metadata = { text };
    await store.commit({ tasks: [makeTask(taskId, { lastSeq: seq })], events: [event] });
  }
}

/** The WAL header's checkpoint sequence: SQLite adds one each time the WAL starts over from its beginning. */
const walStarts = (path: string): number => readFileSync(`${path}-wal`).readUInt32BE(12);

/**
 * A store's writer on its own, without the checkpoint thread (the test raises `restartWanted` in its place),
 * and a commit of event `seq` of task "t". Its own bound (twice restartFrames) is far away: only the request
 * makes the WAL start over.
 */
function writerAt(path: string): { tables: SqliteTables; restartWanted: Int32Array; commit: (seq: number) => void } {
  const restartWanted = restartFlag();
  const tables = new SqliteTables(path, 1_000_000, restartWanted);
  const task = JSON.stringify(makeTask("t"));
  const commit = (seq: number): void =>
    tables.commit([["t", "c", "echo", "working", seq, null, task, null]], [["t", seq, JSON.stringify(makeEvent("t", seq))]]);
  return { tables, restartWanted, commit };
}

let dir = "";
let n = 0;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "a2a-sqlite-store-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});
/** Each store gets its own file in a directory that does not exist yet (the store creates it). */
const fileStore = async (): Promise<SqliteStore> => SqliteStore.open(join(dir, `nested-${++n}`, "deeper", "router.db"));

runStoreContract("sqlite file", fileStore, undefined, {
  reopen: async (closed) => SqliteStore.open((closed as SqliteStore).path),
});
// Small commits run on the router's thread while the writer is idle: the contract again with every commit on the writer's.
runStoreContract("sqlite file, every commit on the writer thread", async () =>
  SqliteStore.open(join(dir, `writer-only-${++n}`, "router.db"), { inlineMaxBytes: 0 }),
);
runStoreContract("sqlite :memory:", async () => SqliteStore.open(":memory:"));

describe("SqliteStore", () => {
  test("creates the parent directory and uses WAL", async () => {
    const path = join(dir, "fresh", "a", "b", "router.db");
    expect(existsSync(join(dir, "fresh"))).toBe(false);
    const store = await SqliteStore.open(path);
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
    const store = await SqliteStore.open(":memory:");
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
    const first = await SqliteStore.open(path);
    try {
      expect(readFileSync(`${path}.pid`, "utf8")).toBe(`${process.pid}\n`);
      await expect(SqliteStore.open(path)).rejects.toThrow(`store sqlite:${path} is in use by another a2a-router (pid ${process.pid})`);
      await first.commit({ tasks: [makeTask("t", { lastSeq: 1 })], events: [makeEvent("t", 1)] });
    } finally {
      await first.close();
    }
    expect(existsSync(`${path}.pid`)).toBe(false);
    const second = await SqliteStore.open(path);
    try {
      expect(seqs(await second.readEvents("t", 0, 10))).toEqual([1]);
    } finally {
      await second.close();
    }
    // Private databases share nothing, so they need no lock.
    const a = await SqliteStore.open(":memory:");
    const b = await SqliteStore.open(":memory:");
    await Promise.all([a.close(), b.close()]);
  });

  test("a router process holds its file: a second router is refused with one line, and SIGKILL frees it at once", async () => {
    const path = join(dir, "spawned", "router.db");
    const router = await spawnRouter(["--store", `sqlite:${path}`]);
    try {
      const inUse = `store sqlite:${path} is in use by another a2a-router (pid ${router.child.pid})`;
      await expect(SqliteStore.open(path)).rejects.toThrow(inUse);
      const second = await runBin(["serve", "--port", "0", "--store", `sqlite:${path}`]);
      expect(second.code).toBe(1);
      expect(second.stderr).toBe(`a2a-router: ${inUse}\n`);
    } finally {
      await router.kill("SIGKILL");
    }
    // The OS dropped the lock with the process; the stale pid file is simply overwritten.
    const store = await SqliteStore.open(path);
    try {
      expect(readFileSync(`${path}.pid`, "utf8")).toBe(`${process.pid}\n`);
    } finally {
      await store.close();
    }
  });

  test("an unopenable path fails with a message naming it", async () => {
    const blocker = join(dir, "afile");
    const store = await SqliteStore.open(blocker); // a file where a directory is needed next
    await store.close();
    await expect(SqliteStore.open(join(blocker, "sub", "router.db"))).rejects.toThrow(`cannot open SQLite store at ${join(blocker, "sub", "router.db")}`);
  });

  test("commits are checkpointed into the database file while the store is open, beside the writer", async () => {
    const path = join(dir, "checkpointed", "router.db");
    const store = await SqliteStore.open(path, { checkpoints: { everyMs: 20 } });
    try {
      const schemaOnly = statSync(path).size;
      await writeEvents(store, "big", 200, 10_000); // ~2 MB, all in the WAL at first
      // Only the checkpoint thread copies the WAL into the file before close: the file growing is its work.
      await until(() => statSync(path).size >= schemaOnly + 2_000_000);
      expect((await store.readEvents("big", 0, 1000)).length).toBe(200);
    } finally {
      await store.close();
    }
  });

  test("while commits never pause, the WAL still starts over once it passes restartFrames (and loses nothing)", async () => {
    const path = join(dir, "restarted", "router.db");
    // 64 pages: 256 KB. Back-to-back commits leave a PASSIVE checkpoint no moment when the WAL is fully copied.
    const store = await SqliteStore.open(path, { checkpoints: { everyMs: 5, restartFrames: 64 } });
    try {
      // ~12 MB of events; each commit also rewrites the task's row and index pages: ~35 MB of WAL pages in all.
      await writeEvents(store, "steady", 600, 20_000);
      // The WAL file keeps its largest extent: without restarts it would be all ~35 MB. The writer bounds it at
      // twice restartFrames whenever the checkpoint thread falls behind, so this holds on a starved machine too.
      expect(statSync(`${path}-wal`).size).toBeLessThan(2 * 64 * 4096 + 200_000);
      expect(seqs(await store.readEvents("steady", 0, 1000))).toEqual(Array.from({ length: 600 }, (_, i) => i + 1));
    } finally {
      await store.close();
    }
  });

  test("asked by the checkpoint thread, the writer copies the rest of the WAL between commits and starts it over", () => {
    const path = join(dir, "asked", "router.db");
    const { tables, restartWanted, commit } = writerAt(path);
    try {
      for (let seq = 1; seq <= 50; seq++) commit(seq);
      const before = walStarts(path);
      commit(51);
      expect(walStarts(path)).toBe(before);
      Atomics.store(restartWanted, 0, 1);
      commit(52);
      expect(Atomics.load(restartWanted, 0)).toBe(0); // all copied: the request is answered
      commit(53);
      expect(walStarts(path)).toBe(before + 1);
      expect(tables.reads.readEvents("t", 0, 100)).toHaveLength(53);
    } finally {
      tables.close();
    }
  });

  test("a reader on an older snapshot answers the request without a restart; the next request, once it is gone, restarts", () => {
    const path = join(dir, "pinned", "router.db");
    const { tables, restartWanted, commit } = writerAt(path);
    const reader = new Database(path, { readonly: true });
    try {
      for (let seq = 1; seq <= 20; seq++) commit(seq);
      reader.exec("BEGIN");
      expect(reader.prepare("SELECT count(*) AS n FROM events").get()).toEqual({ n: 20 }); // holds this snapshot
      commit(21);
      const before = walStarts(path);
      Atomics.store(restartWanted, 0, 1);
      commit(22);
      expect(Atomics.load(restartWanted, 0)).toBe(0); // answered: not asked again on every commit
      commit(23);
      expect(walStarts(path)).toBe(before); // the reader still needs the WAL's frames
      reader.exec("COMMIT");
      Atomics.store(restartWanted, 0, 1); // the checkpoint thread's next pass
      commit(24);
      commit(25);
      expect(walStarts(path)).toBe(before + 1);
      expect(tables.reads.readEvents("t", 0, 100)).toHaveLength(25);
    } finally {
      reader.close();
      tables.close();
    }
  });

  test("a small commit that finds the write lock taken is made by the writer thread, which waits for it", async () => {
    const path = join(dir, "locked", "router.db");
    const store = await SqliteStore.open(path);
    const other = new Database(path);
    try {
      await writeEvents(store, "t", 1, 10);
      other.exec("BEGIN IMMEDIATE"); // another program writing: the lock is its until it commits
      const committed = store.commit({ tasks: [makeTask("t", { lastSeq: 2 })], events: [makeEvent("t", 2)] });
      other.exec("COMMIT");
      await committed;
      expect(seqs(await store.readEvents("t", 0, 10))).toEqual([1, 2]);
    } finally {
      other.close();
      await store.close();
    }
  });

  test("a small commit made while a large one is on the writer thread is stored after it, not ahead", async () => {
    const path = join(dir, "ordered", "router.db");
    const store = await SqliteStore.open(path, { inlineMaxBytes: 4096 });
    try {
      const large = Array.from({ length: 20 }, (_, i) => Object.assign(makeEvent("t", i + 1), { metadata: { text: "x".repeat(1000) } }));
      const first = store.commit({ tasks: [makeTask("t", { lastSeq: 20 })], events: large });
      // Ahead of the first, event 21 would leave a gap in the log, and the store would refuse it.
      const second = store.commit({ tasks: [makeTask("t", { lastSeq: 21 })], events: [makeEvent("t", 21)] });
      await Promise.all([first, second]);
      expect(seqs(await store.readEvents("t", 0, 100))).toEqual(Array.from({ length: 21 }, (_, i) => i + 1));
    } finally {
      await store.close();
    }
  });

  test("a commit within both inline bounds runs on the caller's thread; one past the row bound goes to the writer", async () => {
    const store = await SqliteStore.open(join(dir, "bounds", "router.db"), { inlineMaxRows: 5 });
    try {
      await store.commit({ tasks: [makeTask("t", { lastSeq: 4 })], events: [1, 2, 3, 4].map((seq) => makeEvent("t", seq)) });
      expect(store.commitCounts).toEqual({ inline: 1, writer: 0 });
      const many = Array.from({ length: 20 }, (_, i) => makeEvent("t", i + 5));
      await store.commit({ tasks: [makeTask("t", { lastSeq: 24 })], events: many });
      expect(store.commitCounts).toEqual({ inline: 1, writer: 1 });
      expect(seqs(await store.readEvents("t", 0, 100))).toEqual(Array.from({ length: 24 }, (_, i) => i + 1));
    } finally {
      await store.close();
    }
  });

  test("close is idempotent", async () => {
    const store = await SqliteStore.open(":memory:");
    await store.close();
    await store.close();
  });
});
