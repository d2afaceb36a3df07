import { randomUUID } from "node:crypto";
import { expect } from "@jest/globals";
import { Redis } from "ioredis";
import { connectAgent, type Agent } from "../../agents/sdk/index.js";
import { REDIS_URL } from "../helpers/redis.js";
import { getJson, openStream, rpc, userMessage, type Json, type SseEvent } from "../helpers/rpc.js";
import { spawnRouter, type RouterProcess } from "../helpers/spawn-router.js";

/** The lease every test cluster runs with: small, so failover tests are quick, yet above the stalls of a loaded 2-core box. */
export const LEASE_MS = 1500;

/** A cluster of router processes on one Redis database, under a key prefix of its own. */
export interface TestCluster {
  prefix: string;
  routers: RouterProcess[];
  /** A connection to the cluster's Redis, for reading what the routers wrote. */
  redis: Redis;
  stop(): Promise<void>;
}

/** Starts `n` routers on one Redis database and prefix. */
export async function startCluster(n: number): Promise<TestCluster> {
  const prefix = `a2a-router-test:cluster:${randomUUID()}:`;
  const env = { A2A_ROUTER_REDIS_PREFIX: prefix, CLUSTER_LEASE_MS: String(LEASE_MS) };
  const routers = await Promise.all(Array.from({ length: n }, () => spawnRouter(["--store", REDIS_URL], env)));
  const redis = new Redis(REDIS_URL);
  return {
    prefix,
    routers,
    redis,
    async stop() {
      if (process.env.CLUSTER_TEST_LOGS) {
        const { writeFileSync } = await import("node:fs");
        for (const [i, r] of routers.entries()) writeFileSync(`${process.env.CLUSTER_TEST_LOGS}-${i}.log`, r.output());
      }
      await Promise.all(routers.map((r) => (r.child.exitCode === null && r.child.signalCode === null ? r.kill("SIGKILL") : r.exited)));
      await redis.quit();
    },
  };
}

/** An SDK agent on `router`'s hub whose skill streams `chunks` texts, waiting for `gate` (if any) after `gateAfter`. */
export function streamingAgent(
  router: RouterProcess,
  name: string,
  opts: { chunks?: number; gateAfter?: number; gate?: Promise<void>; onCancel?: () => void; forever?: boolean } = {},
): Agent {
  const agent = connectAgent({ url: router.url.replace(/^http/, "ws") + "/hub", name, logger: quiet });
  agent.skill({ name: "stream", description: "streams numbered chunks" }, async function* (_message, ctx) {
    ctx.signal.addEventListener("abort", () => opts.onCancel?.(), { once: true });
    const total = opts.forever ? Number.MAX_SAFE_INTEGER : (opts.chunks ?? 5);
    for (let i = 1; i <= total && !ctx.signal.aborted; i++) {
      if (opts.gate && i === (opts.gateAfter ?? 0) + 1) await opts.gate;
      yield `chunk ${i}. `;
      // Work takes time; the turn is not instantaneous (and a stalled router has frames queued to read).
      if (opts.forever) await new Promise((r) => setTimeout(r, 5));
    }
    if (ctx.signal.aborted) await new Promise(() => undefined);
  });
  return agent;
}

const quiet = { debug: () => {}, info: () => {}, warn: () => {}, error: () => {} };

/** Starts a v0.1 streaming task for `agent` through `router`. */
export async function startStream(router: RouterProcess, agent: string, taskId = randomUUID()) {
  const stream = await openStream(router.url, "tasks/sendSubscribe", { id: taskId, message: userMessage("go"), metadata: { agent } });
  return { taskId, stream };
}

/** Resubscribes through `router` after `lastEventId`. */
export function resubscribe(router: RouterProcess, taskId: string, lastEventId: number) {
  return openStream(router.url, "tasks/resubscribe", { id: taskId }, { headers: { "last-event-id": String(lastEventId) } });
}

/** Whether `e` ends its stream. */
export function isFinal(e: SseEvent): boolean {
  return e.data.result?.final === true;
}

/** Asserts the ids go from..to with no gap or duplicate. */
export function expectContiguous(events: SseEvent[], from = 1): void {
  expect(events.map((e) => Number(e.id))).toEqual(events.map((_, i) => from + i));
}

/** The task's log as stored, seq n at index n-1. */
export async function storedLog(cluster: TestCluster, taskId: string): Promise<Json[]> {
  const jsons = await cluster.redis.lrange(`${cluster.prefix}events:${taskId}`, 0, -1);
  return jsons.map((j) => JSON.parse(j) as Json);
}

/** Resolves once `check` holds, checking every 20 ms, failing after `ms`. */
export async function until(check: () => Promise<boolean> | boolean, what: string, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Whether `GET /agents` on `router` lists `name` online. */
export async function listsOnline(router: RouterProcess, name: string): Promise<boolean> {
  const { agents } = await getJson(router.url + "/agents");
  return (agents as Json[]).some((a) => a.id === name && a.online === true);
}

export { rpc };
