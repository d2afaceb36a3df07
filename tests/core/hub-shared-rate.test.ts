import { afterAll, beforeAll, expect, test } from "@jest/globals";
import type { RunningRouter } from "../../router/index.js";
import { configFromEnv, resolveConfig } from "../../router/config/load.js";
import { SchemaRegistry } from "../../router/schema/validator.js";
import { IngestRate, Senders, SHARING_WINDOW_MS } from "../../hub/ingest-rate.js";
import { statusText } from "../helpers/rpc.js";
import { testRouter } from "../helpers/router.js";
import { hubTaskStream, RawAgent, text } from "../helpers/ws-agent.js";

/**
 * `limits.hubSharedBytesPerSecond`: while another hub agent connection is sending, one connection sends at most
 * that many bytes a second (after a tenth of a second's worth at once); an agent alone is not held to it.
 * Nothing is lost either way, and each rest is counted (`a2a_router_hub_rests_total`).
 */

const SHARED = 100_000;
const FRAMES = 30;
const FILLER = "x".repeat(10_000); // 300 KB a flood

let router: RunningRouter;
beforeAll(async () => {
  // The silence timeout is short enough that the flood's rests (100 ms a 10 KB frame at SHARED) would trip it
  // several times over if they counted, and long enough that a loaded machine delaying the test's pongs does
  // not (400 ms did: a CI run on 2 busy cores dropped the agent that was alone and not resting at all).
  router = await testRouter({ eliza: false, config: { limits: { hubSharedBytesPerSecond: SHARED }, hub: { timeoutMs: 1500 } } });
});
afterAll(async () => {
  await router?.close();
});

async function rests(limit: "own" | "shared"): Promise<number> {
  const { values } = await router.metrics.hubRests.get();
  return values.find((v) => v.labels.limit === limit)?.value ?? 0;
}

/** Sends FRAMES statuses of FILLER and the final one for `taskId`. */
function flood(agent: RawAgent, taskId: string): void {
  for (let i = 1; i <= FRAMES; i++) agent.notify("task.status", { task_id: taskId, status: { state: "working", message: text(`${i} ${FILLER}`) } });
  agent.notify("task.status", { task_id: taskId, status: { state: "completed", message: text("done") }, final: true });
}

const inOrder = (n: number) => [...Array.from({ length: n }, (_, i) => String(i + 1)), "done"];

test("an agent alone is not held to the shared rate, nor by a socket that sends without registering", async () => {
  const { agent, stream } = await hubTaskStream(router.url, "alone", "alone-1");
  const stranger = new RawAgent(router.url);
  await stranger.open();
  // Read by the hub (and refused) just before the flood: had it counted as an agent sending, the flood would rest.
  const refused = await stranger.request("task.status", { task_id: "alone-1", status: { state: "working" } });
  expect(refused.error).toBeDefined();
  flood(agent, "alone-1");
  const events = await stream.all();
  expect(events.map((e) => statusText(e).split(" ")[0])).toEqual(inOrder(FRAMES));
  expect(await rests("shared")).toBe(0);
  await Promise.all([agent.close(), stranger.close()]);
});

test("while another agent sends, a flooding agent is read at the shared rate; neither loses anything", async () => {
  const quiet = await hubTaskStream(router.url, "quiet", "quiet-1");
  const loud = await hubTaskStream(router.url, "loud", "loud-1");
  let sent = 0;
  const say = () => quiet.agent.notify("task.status", { task_id: "quiet-1", status: { state: "working", message: text(String(++sent)) } });
  say();
  // Well inside the sharing window, for as long as the flood lasts.
  const ticker = setInterval(say, SHARING_WINDOW_MS / 10);
  const t0 = performance.now();
  flood(loud.agent, "loud-1");
  const events = await loud.stream.all();
  const elapsed = performance.now() - t0;
  clearInterval(ticker);
  quiet.agent.notify("task.status", { task_id: "quiet-1", status: { state: "completed", message: text("done") }, final: true });
  const quietEvents = await quiet.stream.all();

  expect(events.map((e) => statusText(e).split(" ")[0])).toEqual(inOrder(FRAMES));
  expect(quietEvents.map((e) => statusText(e))).toEqual(inOrder(sent));
  expect(await rests("shared")).toBeGreaterThan(0);
  expect(await rests("own")).toBe(0);
  // A lower bound only (a slow machine may take longer, never shorter), with room for a few frames read before
  // the router saw the other agent's first status: most of the 300 KB went at SHARED bytes a second.
  expect(elapsed).toBeGreaterThanOrEqual((200_000 / SHARED) * 1000);
  expect(router.hub!.onlineCount()).toBe(2);
  await Promise.all([quiet.agent.close(), loud.agent.close()]);
});

test("Senders: a connection shares the hub while another sent within the window, and not once that one is gone", () => {
  const senders = new Senders();
  expect(senders.sent("a", 0)).toBe(false);
  expect(senders.sent("a", 10)).toBe(false);
  expect(senders.sent("b", 20)).toBe(true);
  expect(senders.sent("a", 30)).toBe(true);
  expect(senders.sent("c", 40)).toBe(true);
  // b's last frame (20) is out of the window; a's (30) is not.
  expect(senders.sent("b", 20 + SHARING_WINDOW_MS + 5)).toBe(true);
  expect(senders.sent("b", 40 + SHARING_WINDOW_MS + 1)).toBe(false);
  senders.forget("b");
  expect(senders.sent("a", 50 + SHARING_WINDOW_MS)).toBe(false);
  senders.sent("d", 60 + SHARING_WINDOW_MS);
  senders.forget("a");
  expect(senders.sent("d", 70 + SHARING_WINDOW_MS)).toBe(false);
});

test("IngestRate: a bucket of a tenth of a second's worth rests the socket past it, for the time its debt takes", () => {
  const rate = new IngestRate(10_000, 0.1);
  const t0 = performance.now();
  expect(rate.take(1_000, t0)).toBe(0);
  expect(rate.take(500, t0)).toBe(50);
  // 50 ms later the debt is paid; what the bucket gained meanwhile never exceeds its 1,000 bytes.
  expect(rate.take(0, t0 + 50)).toBe(0);
  expect(rate.take(1_000, t0 + 10_000)).toBe(0);
  expect(rate.take(1, t0 + 10_000)).toBe(1);
});

test("the shared rate is 5 MiB/s by default, set in the file or HUB_SHARED_BYTES_PER_SECOND, a whole number of bytes, 0 (none) or more", () => {
  const schemas = new SchemaRegistry();
  expect(resolveConfig(schemas, {}).limits.hubSharedBytesPerSecond).toBe(5 * 1024 * 1024);
  expect(resolveConfig(schemas, { file: { limits: { hubSharedBytesPerSecond: 0 } } }).limits.hubSharedBytesPerSecond).toBe(0);
  expect(
    resolveConfig(schemas, { file: { limits: { hubSharedBytesPerSecond: 5000 } }, env: configFromEnv({ HUB_SHARED_BYTES_PER_SECOND: "7000" }) }).limits
      .hubSharedBytesPerSecond,
  ).toBe(7000);
  expect(() => configFromEnv({ HUB_SHARED_BYTES_PER_SECOND: "lots" })).toThrow('Invalid config: HUB_SHARED_BYTES_PER_SECOND must be an integer, got "lots"');
  expect(() => resolveConfig(schemas, { file: { limits: { hubSharedBytesPerSecond: -1 } } })).toThrow(/limits\.hubSharedBytesPerSecond must be >= 0/);
});
