import { afterAll, describe, expect, test } from "@jest/globals";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openStream, rpc, statusText, userMessage } from "../helpers/rpc.js";
import { spawnRouter, type RouterProcess } from "../helpers/spawn-router.js";
import { hubTaskStream, text } from "../helpers/ws-agent.js";

const dir = mkdtempSync(join(tmpdir(), "a2a-restart-"));
const store = `sqlite:${join(dir, "router.db")}`;
const running: RouterProcess[] = [];
afterAll(async () => {
  await Promise.all(running.map((r) => r.kill("SIGKILL")));
  rmSync(dir, { recursive: true, force: true });
});

describe("router restart with SQLite", () => {
  test("a crash mid-task: the task is failed on restart, its log replays, finished tasks answer", async () => {
    const first = await spawnRouter(["--store", store]);
    running.push(first);
    const done = await rpc(first.url, "tasks/send", { id: "before-crash", message: userMessage("kept"), metadata: { agent: "echo" } });
    expect(done.result.status.state).toBe("completed");

    const { agent, stream } = await hubTaskStream(first.url, "crashy", "mid-crash", "work");
    agent.notify("task.status", { task_id: "mid-crash", status: { state: "working", message: text("step 1") } });
    agent.notify("task.status", { task_id: "mid-crash", status: { state: "working", message: text("step 2") } });
    expect((await stream.next())!.id).toBe("1");
    expect((await stream.next())!.id).toBe("2");

    await first.kill("SIGKILL");
    await agent.closed;

    const second = await spawnRouter(["--store", store]);
    running.push(second);
    const got = await rpc(second.url, "tasks/get", { id: "mid-crash" });
    expect(got.result.status.state).toBe("failed");
    expect(got.result.status.message.parts[0].text).toMatch(/restarted while this task was in flight/);

    const resumed = await openStream(second.url, "tasks/resubscribe", { id: "mid-crash" }, { headers: { "last-event-id": "2" } });
    const rest = await resumed.all();
    expect(rest.map((e) => e.id)).toEqual(["3"]);
    expect(rest[0]!.data.result).toMatchObject({ status: { state: "failed" }, final: true });

    const full = await openStream(second.url, "tasks/resubscribe", { id: "mid-crash" }, { headers: { "last-event-id": "0" } });
    const log = await full.all();
    expect(log.map(statusText)).toEqual(["step 1", "step 2", expect.stringMatching(/restarted/)]);

    const kept = await rpc(second.url, "tasks/get", { id: "before-crash" });
    expect(kept.result.status.state).toBe("completed");
    expect(kept.result.status.message.parts[0].text).toBe("kept");
    await second.kill();
  });
});
