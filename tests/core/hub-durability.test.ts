import { afterAll, expect, test } from "@jest/globals";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openStream, rpc, statusText } from "../helpers/rpc.js";
import { spawnRouter, type RouterProcess } from "../helpers/spawn-router.js";
import { hubTaskStream, text } from "../helpers/ws-agent.js";

/** CONTRACT 12: the hub acks an agent's update only once it is durable, so an acked update survives a crash. */

const dir = mkdtempSync(join(tmpdir(), "a2a-hub-acks-"));
const store = `sqlite:${join(dir, "router.db")}`;
const running: RouterProcess[] = [];
afterAll(async () => {
  await Promise.all(running.map((r) => r.kill("SIGKILL")));
  rmSync(dir, { recursive: true, force: true });
});

test("every update acked before a SIGKILL of the router is in the task's log after the restart", async () => {
  const first = await spawnRouter(["--store", store]);
  running.push(first);
  const { agent } = await hubTaskStream(first.url, "acked", "ack-1");

  // Killed on the first ack, from the socket's own handler: nothing of ours runs in between.
  const acked = new Set<string>();
  agent.ws.on("message", (data) => {
    const frame = JSON.parse(String(data));
    if (typeof frame.id !== "string" || !frame.id.startsWith("u") || !frame.result) return;
    if (acked.size === 0) first.child.kill("SIGKILL");
    acked.add(frame.id);
  });
  const count = 40;
  for (let i = 1; i <= count; i++) {
    agent.ws.send(
      JSON.stringify({
        jsonrpc: "2.0",
        id: `u${i}`,
        method: "task.status",
        params: { task_id: "ack-1", seq: i, status: { state: "working", message: text(`u${i}`) } },
      }),
    );
  }
  await first.exited;
  await agent.closed;
  expect(acked.size).toBeGreaterThan(0);

  const second = await spawnRouter(["--store", store]);
  running.push(second);
  const log = await (await openStream(second.url, "tasks/resubscribe", { id: "ack-1" }, { headers: { "last-event-id": "0" } })).all();
  const logged = new Set(log.map(statusText));
  for (const id of acked) expect(logged).toContain(id);
  // The log is the agent's updates in order, then the failure the restart recorded.
  const texts = log.map(statusText);
  expect(texts.slice(0, -1)).toEqual(texts.slice(0, -1).map((_, i) => `u${i + 1}`));
  expect((await rpc(second.url, "tasks/get", { id: "ack-1" })).result.status.state).toBe("failed");
  await second.kill();
});
