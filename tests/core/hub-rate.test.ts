import { afterAll, beforeAll, expect, test } from "@jest/globals";
import type { RunningRouter } from "../../router/index.js";
import { configFromEnv, resolveConfig } from "../../router/config/load.js";
import { SchemaRegistry } from "../../router/schema/validator.js";
import { statusText } from "../helpers/rpc.js";
import { testRouter } from "../helpers/router.js";
import { hubTaskStream, text } from "../helpers/ws-agent.js";

/**
 * `limits.hubBytesPerSecond`: one agent connection sends the hub at most that many bytes a second (after a
 * second's worth at once); past it the router stops reading its socket for a while. Nothing is lost, and the
 * rest does not count as the agent's silence.
 */

const RATE = 100_000;
let router: RunningRouter;
beforeAll(async () => {
  // A silence timeout shorter than the two seconds the agent spends rate-limited (a 100 ms rest a 10 KB frame):
  // resting must not cost it its link. Not shorter still: a loaded machine delaying the test's own pongs by
  // 400 ms once dropped an agent that was not resting at all (tests/core/hub-shared-rate.test.ts).
  router = await testRouter({ eliza: false, config: { limits: { hubBytesPerSecond: RATE }, hub: { timeoutMs: 1500 } } });
});
afterAll(async () => {
  await router?.close();
});

test("an agent past its rate is read at the rate, keeps its link, and every update arrives in order", async () => {
  const { agent, stream } = await hubTaskStream(router.url, "chatty", "chatty-1");
  const count = 30;
  const filler = "x".repeat(10_000); // 300 KB in all: the first second's 100 KB at once, then 100 KB a second
  const t0 = performance.now();
  for (let i = 1; i <= count; i++) {
    agent.notify("task.status", { task_id: "chatty-1", status: { state: "working", message: text(`${i} ${filler}`) } });
  }
  agent.notify("task.status", { task_id: "chatty-1", status: { state: "completed", message: text("done") }, final: true });
  const events = await stream.all();
  const elapsed = performance.now() - t0;

  expect(events.map((e) => statusText(e).split(" ")[0])).toEqual([...Array.from({ length: count }, (_, i) => String(i + 1)), "done"]);
  // A lower bound only (a slow machine may take longer, never shorter): what is past the first second's
  // allowance goes at RATE.
  expect(elapsed).toBeGreaterThanOrEqual(((count * filler.length - RATE) / RATE) * 1000 * 0.9);
  expect(router.hub!.onlineCount()).toBe(1);
  await agent.close();
});

test("an agent that says goodbye right after its last update loses nothing: its close is read after what it sent", async () => {
  const { agent, stream } = await hubTaskStream(router.url, "brief", "brief-1");
  const count = 30;
  const filler = "y".repeat(10_000);
  for (let i = 1; i <= count; i++) {
    agent.notify("task.status", { task_id: "brief-1", status: { state: "working", message: text(`${i} ${filler}`) } });
  }
  agent.notify("task.status", { task_id: "brief-1", status: { state: "completed", message: text("done") }, final: true });
  // Goodbye right after, while the router still holds most of these frames back.
  await agent.close();
  const events = await stream.all();
  expect(events.map((e) => statusText(e).split(" ")[0])).toEqual([...Array.from({ length: count }, (_, i) => String(i + 1)), "done"]);
  expect(events.at(-1)!.data.result).toMatchObject({ status: { state: "completed" }, final: true });
});

test("the limit is off by default, set in the file or HUB_BYTES_PER_SECOND, a whole number of bytes, 0 or more", () => {
  const schemas = new SchemaRegistry();
  expect(resolveConfig(schemas, {}).limits.hubBytesPerSecond).toBe(0);
  expect(
    resolveConfig(schemas, { file: { limits: { hubBytesPerSecond: 5000 } }, env: configFromEnv({ HUB_BYTES_PER_SECOND: "7000" }) }).limits.hubBytesPerSecond,
  ).toBe(7000);
  expect(() => configFromEnv({ HUB_BYTES_PER_SECOND: "lots" })).toThrow('Invalid config: HUB_BYTES_PER_SECOND must be an integer, got "lots"');
  expect(() => resolveConfig(schemas, { file: { limits: { hubBytesPerSecond: -1 } } })).toThrow(/limits\.hubBytesPerSecond must be >= 0/);
  expect(() => resolveConfig(schemas, { file: { limits: { hubBytesPerSecond: "fast" as unknown as number } } })).toThrow(
    /limits\.hubBytesPerSecond must be integer/,
  );
});
