/**
 * The `cluster` scenario of `npm run bench`: what the cluster costs a stream. Two routers on one
 * Redis (REDIS_URL, default 127.0.0.1:6379; keys under a prefix of their own, deleted afterwards), a hub agent
 * (the SDK) connected to A streaming N chunks, each stamped with the time it was yielded: as fast as it can
 * (for events/s), then one per millisecond (for latency, so that no queue in front of the router counts):
 *  - stream on A, the agent's instance: the in-process fan-out (the fast path);
 *  - stream on B: the log followed across instances (append announcement on Redis, then a log read).
 * Beside them, the same measure on one router with the default embedded SQLite store (the fast path the
 * cluster must not slow down). Reports events/s and the added latency (yield -> client) p50 / p99 for each.
 * BENCH_EVENTS sets N (2000). Routers run in the bench process here: the figures are relative, side by side.
 */
import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Section } from "./lib.js";
import { Redis } from "ioredis";
import { connectAgent } from "../agents/sdk/index.js";
import { startRouter, type RunningRouter } from "../router/index.js";
import { RedisStore } from "../router/store/index.js";

const N = Number(process.env.BENCH_EVENTS ?? 2000);
const REDIS_URL = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";
const prefix = `a2a-router-bench:${randomUUID()}:`;

async function router(): Promise<RunningRouter> {
  const store = new RedisStore(REDIS_URL, { prefix, exclusive: false });
  await store.connect();
  return startRouter({ port: 0, store, eliza: false });
}

/** Streams one task through `via`; resolves with events/s and the latencies of its chunks (ms). */
async function measure(via: RunningRouter, mode: "burst" | "paced"): Promise<{ perSecond: number; latencies: number[] }> {
  const body = {
    jsonrpc: "2.0",
    id: 1,
    method: "tasks/sendSubscribe",
    params: { id: randomUUID(), message: { role: "user", parts: [{ type: "text", text: mode }] }, metadata: { agent: "bench" } },
  };
  const t0 = performance.now();
  const res = await fetch(`${via.url}/rpc`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
  const latencies: number[] = [];
  let buffered = "";
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    const now = performance.now();
    buffered += value;
    // Whole frames only; a stamp is a chunk's text ("@<ms>"), so no full SSE parse is needed.
    const end = buffered.lastIndexOf("\n\n");
    if (end < 0) continue;
    for (const m of buffered.slice(0, end).matchAll(/"text":"@([\d.]+)"/g)) latencies.push(now - Number(m[1]));
    buffered = buffered.slice(end + 2);
  }
  return { perSecond: (latencies.length / (performance.now() - t0)) * 1000, latencies };
}

function pct(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))] ?? NaN;
}

/** The bench's stamping agent on `via`'s hub. */
async function stampingAgent(via: RunningRouter) {
  const agent = connectAgent({ url: `${via.url.replace(/^http/, "ws")}/hub`, name: "bench", logger: { debug() {}, info() {}, warn() {}, error() {} } });
  agent.skill({ name: "stamps", description: "N time-stamped chunks" }, async function* (message) {
    for (let i = 0; i < N; i++) {
      yield `@${performance.now()}`;
      if (message === "paced") await new Promise((r) => setTimeout(r, 1));
    }
  });
  await agent.ready;
  return agent;
}

async function line(label: string, via: RunningRouter): Promise<string> {
  const { perSecond } = await measure(via, "burst");
  const sorted = (await measure(via, "paced")).latencies.sort((x, y) => x - y);
  return `${label.padEnd(36)} ${String(Math.round(perSecond)).padStart(7)} events/s   added latency p50 ${pct(sorted, 50).toFixed(2)} ms   p99 ${pct(sorted, 99).toFixed(2)} ms`;
}

/** One router, embedded SQLite: the single-process reference. */
async function single(): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), "a2a-bench-"));
  const only = await startRouter({ port: 0, store: `sqlite:${join(dir, "router.db")}`, eliza: false });
  const agent = await stampingAgent(only);
  try {
    await measure(only, "burst"); // warm-up
    return await line("one router, SQLite (reference)", only);
  } finally {
    await agent.close();
    await only.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function cluster(): Promise<Section> {
  const lines = [await single()];
  const [a, b] = [await router(), await router()];
  const agent = await stampingAgent(a);
  // Let B see the agent (an announcement away).
  while (!b.agents.find("bench")) await new Promise((r) => setTimeout(r, 10));
  try {
    await measure(a, "burst"); // warm-up
    lines.push(await line("cluster: stream on the agent's router", a));
    lines.push(await line("cluster: stream on another router", b));
    for (const l of lines) console.log(`  ${l}`);
    return { title: `Cluster mode (two routers on one Redis, ${N} events per task)`, lines };
  } finally {
    await agent.close();
    await Promise.all([a.close(), b.close()]);
    const redis = new Redis(REDIS_URL);
    let cursor = "0";
    do {
      const [next, keys] = await redis.scan(cursor, "MATCH", `${prefix}*`, "COUNT", 1000);
      if (keys.length) await redis.del(...keys);
      cursor = next;
    } while (cursor !== "0");
    await redis.quit();
  }
}
