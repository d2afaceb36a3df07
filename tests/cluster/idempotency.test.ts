import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, test } from "@jest/globals";
import { connectAgent, type Agent } from "../../agents/sdk/index.js";
import { deleteKeys, redisReachable, START_REDIS } from "../helpers/redis.js";
import { openStream, post, type SseEvent } from "../helpers/rpc.js";
import { startCluster, until, type TestCluster } from "./helpers.js";

/**
 * A retry to another instance never runs a turn twice (CONTRACT 14 with 11): two router processes
 * (`npm run build` first) on one Redis database, an SDK agent connected to the first, retries with the same
 * `Idempotency-Key` sent to the second.
 */
const reachable = await redisReachable();
const quiet = { debug: () => {}, info: () => {}, warn: () => {}, error: () => {} };

if (!reachable) {
  describe("idempotency across a cluster", () => {
    test("needs Redis", () => {
      if (process.env.CI === "true") throw new Error(`Redis is unreachable: ${START_REDIS}`);
      process.stderr.write(`cluster idempotency tests skipped: Redis is unreachable; ${START_REDIS}\n`);
    });
  });
} else {
  describe("idempotency across a cluster", () => {
    let c: TestCluster;
    let agent: Agent;
    let runs = 0;
    let openGate!: () => void;
    let gate = Promise.resolve();

    beforeAll(async () => {
      c = await startCluster(2);
      agent = connectAgent({ url: `${c.routers[0]!.url.replace(/^http/, "ws")}/hub`, name: "once", logger: quiet });
      agent.skill({ name: "answer", description: "answers after the gate" }, async function* (message) {
        runs++;
        await gate;
        yield `you said: ${message}`;
      });
      await agent.ready;
      await until(async () => (await fetch(`${c.routers[1]!.url}/v1/models/once`)).ok, "the agent listed on the second instance");
    });

    afterAll(async () => {
      openGate?.();
      await agent.close();
      await c.stop();
      await deleteKeys(c.prefix);
    });

    test("a finished turn: the retry on the other instance answers the same task, the agent ran once", async () => {
      const [a, b] = c.routers;
      const before = runs;
      const key = randomUUID();
      const body = JSON.stringify({ model: "once", messages: [{ role: "user", content: "hi" }] });
      const first = await post(`${a!.url}/v1/chat/completions`, body, { "idempotency-key": key });
      expect(first.status).toBe(200);
      const retry = await post(`${b!.url}/v1/chat/completions`, body, { "idempotency-key": key });
      expect(retry.status).toBe(200);
      expect(retry.headers.get("x-task-id")).toBe(first.headers.get("x-task-id"));
      expect(retry.body.choices[0].message.content).toBe(first.body.choices[0].message.content);
      expect(runs - before).toBe(1);
      const conflict = await post(`${b!.url}/v1/chat/completions`, JSON.stringify({ model: "once", messages: [{ role: "user", content: "other" }] }), {
        "idempotency-key": key,
      });
      expect(conflict.status).toBe(409);
      expect(conflict.body.error.code).toBe("idempotency_conflict");
      expect(conflict.headers.get("x-should-retry")).toBe("false");
    });

    test("a running turn: the retry on the other instance streams it from its start, live to its end", async () => {
      const [a, b] = c.routers;
      gate = new Promise<void>((r) => (openGate = r));
      const before = runs;
      const key = randomUUID();
      const params = {
        message: { kind: "message", role: "user", messageId: randomUUID(), parts: [{ kind: "text", text: "wait" }] },
        metadata: { agent: "once" },
      };
      const first = await openStream(a!.url, "message/stream", params, { headers: { "idempotency-key": key } });
      await until(() => runs - before === 1, "the agent running the turn");
      const retry = await openStream(b!.url, "message/stream", params, { headers: { "idempotency-key": key }, id: "again" });
      openGate();
      const [one, two] = await Promise.all([first.all(), retry.all()]);
      const idOf = (e: SseEvent) => e.data.result.taskId ?? e.data.result.id;
      const taskId = idOf(one[0]!);
      expect(two.length).toBeGreaterThan(0);
      expect(two.every((e) => idOf(e) === taskId)).toBe(true);
      const last = (events: SseEvent[]) => events.at(-1)!.data.result.status;
      expect(last(two)).toMatchObject({ state: "completed" });
      expect(last(one)).toEqual(last(two));
      expect(runs - before).toBe(1);
    });
  });
}
