import { afterAll, beforeAll, describe, expect, test } from "@jest/globals";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import type { RunningRouter } from "../../router/index.js";
import { SqliteStore } from "../../router/store/index.js";
import { openStream, rpc } from "../helpers/rpc.js";
import { testRouter } from "../helpers/router.js";
import { hubTaskStream, text } from "../helpers/ws-agent.js";
import { ERROR_LEVEL, range, recordingLogger, runTask, steadyAgent } from "./faults-helpers.js";

/**
 * Faults: the SQLite store failing on append. The failures are real: SQLite itself aborts the commit's
 * transaction, from triggers put in the database file before the router opens it (while it runs, the router
 * holds the file exclusively, so nothing else can reach it; and chmod does not make an open WAL database
 * fail, its file descriptors stay writable). `doomed`'s and `hub-doomed`'s events from seq 3 on are refused for good; `flaky`'s
 * are refused while a switch row exists, which the test sets and clears through the store's own connection.
 */

const CHUNKS = 40;
const dir = mkdtempSync(join(tmpdir(), "a2a-faults-sqlite-"));
const path = join(dir, "router.db");
const steady = steadyAgent("steady", CHUNKS);
/** Still streaming when the store gives up on its task (so it is told to cancel). */
const long = steadyAgent("long", 100_000);
const log = recordingLogger();
let store: SqliteStore;
let router: RunningRouter;

beforeAll(async () => {
  await (await SqliteStore.open(path)).close(); // creates the schema
  const db = new Database(path);
  db.exec(`
    CREATE TRIGGER fault_doomed BEFORE INSERT ON events
    WHEN (SELECT id FROM tasks WHERE task_no = NEW.task_no) IN ('doomed', 'hub-doomed') AND NEW.seq >= 3
    BEGIN SELECT RAISE(ABORT, 'simulated write failure'); END;
    CREATE TRIGGER fault_flaky BEFORE INSERT ON events
    WHEN (SELECT id FROM tasks WHERE task_no = NEW.task_no) = 'flaky' AND EXISTS (SELECT 1 FROM push_configs WHERE task_id = 'fault-switch')
    BEGIN SELECT RAISE(ABORT, 'simulated transient failure'); END;`);
  db.close();
  store = await SqliteStore.open(path);
  router = await testRouter({ store, eliza: false, hostedAgents: [steady.agent, long.agent], logger: log.logger, config: { limits: { commitRetryMs: 400 } } });
});

afterAll(async () => {
  await router?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("faults: the SQLite store refuses one task's writes", () => {
  test("that task fails loudly (streams end failed, agent told to cancel); the others are served in full", async () => {
    const [doomed, ...others] = await Promise.all([
      runTask(router.url, "doomed", "long"),
      runTask(router.url, "ok-1", "steady"),
      runTask(router.url, "ok-2", "steady"),
    ]);
    for (const events of others) {
      expect(events.map((e) => Number(e.id))).toEqual(range(1, CHUNKS + 1));
      expect(events[CHUNKS]!.data.result.status.state).toBe("completed");
    }
    // The stored events, then a final failure that is not in the log (so it has no id).
    expect(doomed.slice(0, -1).map((e) => e.id)).toEqual(["1", "2"]);
    const last = doomed[doomed.length - 1]!;
    expect(last.id).toBeUndefined();
    expect(last.data.result).toMatchObject({ id: "doomed", final: true, status: { state: "failed" } });
    expect(last.data.result.status.message.parts[0].text).toBe(
      "The router could not store this task's updates, so it failed the task; its stored log ends at event 2.",
    );

    // tasks/get claims nothing the store does not hold: two events' worth of progress, and the failure.
    const got = (await rpc(router.url, "tasks/get", { id: "doomed" })).result;
    expect(got.status.state).toBe("failed");
    expect(got.artifacts[0].parts[0].text).toBe("1,2,");
    expect(long.canceled).toEqual(["doomed"]);
    await waitUntil(() => long.aborted.includes("doomed"));
    expect(steady.canceled).toEqual([]);
    expect(log.lines.some((l) => l.level === ERROR_LEVEL && /^STORE FAILED for a task/.test(l.msg) && l.task === "doomed")).toBe(true);

    // A resume from the last stored event ends with the same failure; the others replay whole.
    const resumed = await (await openStream(router.url, "tasks/resubscribe", { id: "doomed" }, { headers: { "last-event-id": "2" } })).all();
    expect(resumed).toHaveLength(1);
    expect(resumed[0]!.id).toBeUndefined();
    expect(resumed[0]!.data.result.status.state).toBe("failed");
    const replay = await (await openStream(router.url, "tasks/resubscribe", { id: "ok-1" }, { headers: { "last-event-id": "0" } })).all();
    expect(replay.map((e) => Number(e.id))).toEqual(range(1, CHUNKS + 1));
    // A failed task cannot be canceled or continued.
    expect((await rpc(router.url, "tasks/cancel", { id: "doomed" })).error.code).toBe(-32002);
  });

  test("a hub agent: its stored updates are acked, the refused one is not, and it is told to cancel", async () => {
    const { agent, stream } = await hubTaskStream(router.url, "hubby", "hub-doomed");
    const update = (i: number) => agent.request("task.status", { task_id: "hub-doomed", seq: i, status: { state: "working", message: text(`step ${i}`) } });
    expect((await update(1)).result).toEqual({ ok: true });
    expect((await update(2)).result).toEqual({ ok: true });
    const canceled = agent.waitFor((f) => f.method === "task.cancel" && f.params?.task_id === "hub-doomed");
    const refused = await update(3);
    expect(refused.result).toBeUndefined();
    expect(refused.error.message).toMatch(/ended before this update was stored/);
    await canceled;
    const events = await stream.all();
    expect(events.map((e) => e.id)).toEqual(["1", "2", undefined]);
    expect(events[2]!.data.result).toMatchObject({ final: true, status: { state: "failed" } });
    expect((await rpc(router.url, "tasks/get", { id: "hub-doomed" })).result.status.state).toBe("failed");
    await agent.close();
  });

  test("a failure that clears within limits.commitRetryMs loses nothing and fails nothing", async () => {
    // Through the router's own store connection: nothing else can open the file while it runs.
    await store.setPushConfig("fault-switch", { id: "on", url: "http://127.0.0.1:9/" });
    const s = await openStream(router.url, "tasks/sendSubscribe", {
      id: "flaky",
      message: { role: "user", parts: [{ type: "text", text: "go" }] },
      metadata: { agent: "steady" },
    });
    const others = runTask(router.url, "ok-3", "steady");
    await log.waitFor(/^store commit failed for a task; retrying it on its own/, "flaky");
    await store.deletePushConfig("fault-switch", "on");
    const events = await s.all();
    expect(events.map((e) => Number(e.id))).toEqual(range(1, CHUNKS + 1));
    expect(events[CHUNKS]!.data.result.status.state).toBe("completed");
    expect((await others).map((e) => Number(e.id))).toEqual(range(1, CHUNKS + 1));
    const got = (await rpc(router.url, "tasks/get", { id: "flaky" })).result;
    expect(got.status.state).toBe("completed");
    expect(got.artifacts[0].parts[0].text).toBe(
      range(1, CHUNKS)
        .map((i) => `${i},`)
        .join(""),
    );
    expect(log.lines.some((l) => /^store commit for a task succeeded after retrying/.test(l.msg) && l.task === "flaky")).toBe(true);
  });
});

async function waitUntil(check: () => boolean): Promise<void> {
  while (!check()) await new Promise((r) => setTimeout(r, 5));
}
