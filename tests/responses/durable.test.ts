/**
 * CONTRACT 15: a response id and its events come from the task's log alone, so they survive a router restart
 * (SQLite store) and read the same on every instance on one Redis. Real router processes (`npm run build`
 * first), a real hub agent (the SDK), the `openai` client.
 */
import { afterAll, beforeAll, describe, expect, test } from "@jest/globals";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import OpenAI from "openai";
import type { ResponseStreamEvent } from "openai/resources/responses/responses";
import { connectAgent, type Agent } from "../../agents/sdk/index.js";
import { startCluster, type TestCluster } from "../cluster/helpers.js";
import { deleteKeys, redisReachable, START_REDIS } from "../helpers/redis.js";
import { spawnRouter, type RouterProcess } from "../helpers/spawn-router.js";
import { until } from "../helpers/until.js";
import { deferred } from "../sdk/helpers.js";
import { QUESTION, expectBooked } from "./helpers.js";

const quiet = { debug: () => {}, info: () => {}, warn: () => {}, error: () => {} };

/** A hub agent that says one progress line, waits for the test, then answers in two chunks ("hang": until canceled). */
function slowAgent(router: RouterProcess, name: string) {
  let gate = deferred<void>();
  let reached = deferred<void>();
  const canceled = { count: 0 };
  const agent = connectAgent({ url: `${router.url.replace(/^http/, "ws")}/hub`, name, logger: quiet }).skill(
    { name: "slow", description: "answers after the test lets it" },
    async function* (message, ctx) {
      await ctx.status("Looking things up");
      reached.resolve();
      if (message === "hang") {
        await new Promise<void>((resolve) => ctx.signal.addEventListener("abort", () => resolve(), { once: true }));
        canceled.count += 1;
        return;
      }
      await gate.promise;
      yield "Hello ";
      yield `${message}!`;
    },
  );
  return {
    agent,
    canceled,
    reached: () => reached.promise,
    release: () => gate.resolve(),
    reset() {
      gate = deferred<void>();
      reached = deferred<void>();
    },
  };
}

function clientOf(router: RouterProcess): OpenAI {
  return new OpenAI({ baseURL: `${router.url}/v1`, apiKey: "unused", maxRetries: 0 });
}

async function all(stream: AsyncIterable<ResponseStreamEvent>): Promise<ResponseStreamEvent[]> {
  const events: ResponseStreamEvent[] = [];
  for await (const event of stream) events.push(event);
  return events;
}

/** Streams a create until its first progress delta, then goes away: the id and what was seen. */
async function dropAfterProgress(client: OpenAI, model: string, input: string) {
  const stream = await client.responses.create({ model, input, stream: true });
  const seen: ResponseStreamEvent[] = [];
  for await (const event of stream) {
    seen.push(event);
    if (event.type === "response.reasoning_summary_text.delta") break;
  }
  return { id: (seen[0] as { response: { id: string } }).response.id, seen };
}

describe("after a restart (SQLite)", () => {
  const dir = mkdtempSync(join(tmpdir(), "a2a-responses-"));
  const store = `sqlite:${join(dir, "router.db")}`;
  const running: RouterProcess[] = [];
  const agents: Agent[] = [];

  afterAll(async () => {
    await Promise.all(agents.map((a) => a.close()));
    await Promise.all(running.map((r) => (r.child.exitCode === null ? r.kill("SIGKILL") : r.exited)));
    rmSync(dir, { recursive: true, force: true });
  });

  test("a finished response reads and resumes exactly; one cut by a crash reads failed", async () => {
    const first = await spawnRouter(["--store", store]);
    running.push(first);
    const slow = slowAgent(first, "slow");
    agents.push(slow.agent);
    await slow.agent.ready;
    const before = clientOf(first);
    const { id, seen } = await dropAfterProgress(before, "slow", "restart");
    slow.release();
    await until(async () => (await before.responses.retrieve(id)).status === "completed");
    const replay = await all(await before.responses.retrieve(id, { stream: true }));
    const stored = await before.responses.retrieve(id);
    const eliza = await before.responses.create({ model: "eliza", input: "book a flight to Paris tomorrow" });
    expect(eliza.output_text).toContain(QUESTION);

    slow.reset();
    const cut = await before.responses.create({ model: "slow", input: "hang", background: true });
    await slow.reached();
    await first.kill("SIGKILL");

    const second = await spawnRouter(["--store", store]);
    running.push(second);
    const after = clientOf(second);
    expect(await after.responses.retrieve(id)).toEqual(stored);
    const rest = await all(await after.responses.retrieve(id, { stream: true, starting_after: seen.at(-1)!.sequence_number }));
    expect(JSON.stringify([...seen, ...rest])).toBe(JSON.stringify(replay));
    // The conversation goes on through the restarted router.
    const booked = await after.responses.create({ model: "eliza", input: "from London", previous_response_id: eliza.id });
    expectBooked(booked.output_text);
    // The turn the crash cut ends failed, and says why.
    const failed = await after.responses.retrieve(cut.id);
    expect(failed.status).toBe("failed");
    expect(failed.error?.message).toMatch(/restarted/);
    const cutEvents = await all(await after.responses.retrieve(cut.id, { stream: true }));
    expect(cutEvents.at(-1)!.type).toBe("response.failed");
    expect(cutEvents.map((e) => e.sequence_number)).toEqual(cutEvents.map((_, i) => i));
  });
});

const reachable = await redisReachable();

if (!reachable) {
  describe("on any instance on one Redis", () => {
    test("needs Redis", () => {
      if (process.env.CI === "true") throw new Error(`Redis is unreachable: ${START_REDIS}`);
      process.stderr.write(`responses cluster tests skipped: Redis is unreachable; ${START_REDIS}\n`);
    });
  });
} else {
  describe("on any instance on one Redis", () => {
    let c: TestCluster;
    let slow: ReturnType<typeof slowAgent>;

    beforeAll(async () => {
      c = await startCluster(2);
      slow = slowAgent(c.routers[0]!, "slow");
      await slow.agent.ready;
      const b = clientOf(c.routers[1]!);
      await until(async () => (await b.models.retrieve("slow").catch(() => undefined)) !== undefined);
    });

    afterAll(async () => {
      await slow.agent.close();
      await c.stop();
      await deleteKeys(c.prefix);
    });

    test("created on A, dropped, resumed exactly on B, live to the end", async () => {
      const [a, b] = c.routers.map(clientOf) as [OpenAI, OpenAI];
      slow.reset();
      const { id, seen } = await dropAfterProgress(a, "slow", "cluster");
      const resumed = await b.responses.retrieve(id, { stream: true, starting_after: seen.at(-1)!.sequence_number });
      // B's stream is open before the agent on A goes on: what follows reaches B live.
      slow.release();
      const rest = await all(resumed);
      const joined = [...seen, ...rest];
      expect(joined.map((e) => e.sequence_number)).toEqual(joined.map((_, i) => i));
      expect(joined.at(-1)!.type).toBe("response.completed");
      expect(JSON.stringify(joined)).toBe(JSON.stringify(await all(await a.responses.retrieve(id, { stream: true }))));
      expect((await b.responses.retrieve(id)).output_text).toBe("Hello cluster!");
    });

    test("started through B for an agent on A, cancelled through B; eliza continued on the other instance", async () => {
      const [a, b] = c.routers.map(clientOf) as [OpenAI, OpenAI];
      slow.reset();
      const created = await b.responses.create({ model: "slow", input: "hang", background: true });
      await slow.reached();
      const cancelled = await b.responses.cancel(created.id);
      expect(cancelled.status).toBe("cancelled");
      await until(() => slow.canceled.count === 1);
      expect((await a.responses.retrieve(created.id)).status).toBe("cancelled");
      const asked = await a.responses.create({ model: "eliza", input: "book a flight to Paris tomorrow" });
      const booked = await b.responses.create({ model: "eliza", input: "from London", previous_response_id: asked.id });
      expectBooked(booked.output_text);
      expect(booked.metadata?.a2a_task_id).toBe(asked.metadata?.a2a_task_id);
    });
  });
}
