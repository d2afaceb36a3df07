import { afterAll, beforeAll, describe, expect, test } from "@jest/globals";
import { randomUUID } from "node:crypto";
import { deleteKeys, redisReachable, START_REDIS } from "../helpers/redis.js";
import { openStream, rpc, type SseEvent } from "../helpers/rpc.js";
import { expectContiguous, startCluster, type TestCluster } from "../cluster/helpers.js";

/**
 * CONTRACT 14 in a cluster (real router processes, `npm run build` first, on one Redis database): the
 * hosted Eliza agent asks on one instance, a subscription on another stays open through the answer given
 * on the first, with exact ids.
 */
const reachable = await redisReachable();

if (!reachable) {
  describe("conversations in a cluster", () => {
    test("needs Redis", () => {
      if (process.env.CI === "true") throw new Error(`Redis is unreachable: ${START_REDIS}`);
      process.stderr.write(`cluster conversation tests skipped: Redis is unreachable; ${START_REDIS}\n`);
    });
  });
} else {
  describe("conversations in a cluster", () => {
    let c: TestCluster;
    beforeAll(async () => {
      c = await startCluster(2);
    });
    afterAll(async () => {
      await c.stop();
      await deleteKeys(c.prefix);
    });

    test("asked on A, subscribed on B after event 1, answered on A: B's stream carries the answer to the end", async () => {
      const [a, b] = c.routers;
      const id = randomUUID();
      const message = (text: string) => ({ id, message: { role: "user", parts: [{ type: "text", text }] } });
      const first = await (await openStream(a!.url, "tasks/sendSubscribe", message("book a flight to Paris tomorrow"), { path: "/agents/eliza" })).all();
      expect(first.at(-1)!.data.result).toMatchObject({ status: { state: "input-required" }, metadata: { missingParameters: ["origin"] } });
      const resumed = await openStream(b!.url, "tasks/resubscribe", { id }, { path: "/agents/eliza", headers: { "last-event-id": "1" } });
      const got: SseEvent[] = [];
      while (got.at(-1)?.data.result?.status?.state !== "input-required") got.push((await resumed.next())!);
      const booked = await rpc(a!.url, "tasks/send", message("from London"), { path: "/agents/eliza" });
      expect(booked.result.status.state).toBe("completed");
      got.push(...(await resumed.all()));
      expectContiguous(got, 2);
      expect(got.at(-1)!.data.result).toMatchObject({ status: { state: "completed" }, final: true });
      expect(got.at(-1)!.data.result.status.message.parts[0].text).toContain("from London to Paris");
    });
  });
}
