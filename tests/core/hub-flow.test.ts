import { afterAll, beforeAll, expect, test } from "@jest/globals";
import type { RunningRouter } from "../../router/index.js";
import { HeldStore } from "../helpers/held-store.js";
import { statusText } from "../helpers/rpc.js";
import { testRouter } from "../helpers/router.js";
import { until } from "../helpers/until.js";
import { hubTaskStream, text } from "../helpers/ws-agent.js";

/**
 * Flow control on the hub: an agent that sends faster than the store takes its updates stops being read
 * (its own socket holds the rest) instead of piling them up in the router, and loses nothing.
 */

const store = new HeldStore();
let router: RunningRouter;
beforeAll(async () => {
  router = await testRouter({ store, eliza: false });
});
afterAll(async () => {
  await router?.close();
});

async function metric(name: string): Promise<number> {
  const body = await (await fetch(`${router.url}/metrics`)).text();
  const line = body.split("\n").find((l) => l.startsWith(`${name} `));
  return Number(line?.split(" ")[1]);
}

test("a flooding agent is paused while the store lags, resumed when it catches up, and every update arrives in order", async () => {
  const { agent, stream } = await hubTaskStream(router.url, "flood", "flood-1");
  store.hold();
  const count = 300;
  const filler = "x".repeat(8 * 1024); // 2.4 MB in all: far past what the hub reads ahead of the store
  for (let i = 1; i <= count; i++) {
    agent.notify("task.status", { task_id: "flood-1", status: { state: "working", message: text(`${i} ${filler}`) } });
  }
  agent.notify("task.status", { task_id: "flood-1", status: { state: "completed", message: text("done") }, final: true });

  await until(async () => (await metric("a2a_router_hub_agents_paused")) === 1);
  // What the router took from the socket is bounded by its flow limits, not by what the agent sent.
  expect(await metric("a2a_router_commit_queue_depth")).toBeLessThan(count / 2);

  store.release();
  const events = await stream.all();
  const texts = events.map((e) => statusText(e).split(" ")[0]);
  expect(texts).toEqual([...Array.from({ length: count }, (_, i) => String(i + 1)), "done"]);
  expect(await metric("a2a_router_hub_agents_paused")).toBe(0);
  await agent.close();
});
