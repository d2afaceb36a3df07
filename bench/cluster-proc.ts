/**
 * The `cluster-proc` scenario: the cluster's cost to a stream with every router a child process of its own
 * (bench/cluster.ts runs its routers inside the bench process, sharing its event loop with the load). Two
 * routers on one Redis (REDIS_URL; keys under a fresh prefix, deleted afterwards), the bench's hub agent on
 * the first: one stream of N events read on the agent's router and on the other (an append announced on
 * Redis, then a log read), beside one router on SQLite. Events/s as fast as the agent pushes, then added
 * latency at 1,000 events/s (the agent's send -> the client), rounds alternating.
 */
import { randomUUID } from "node:crypto";
import { Redis } from "ioredis";
import { paced } from "./latency.js";
import { alternate, BenchAgent, fmt, log, median, percentile, QUICK, sleep, startRouter, type Child, type Section } from "./lib.js";
import { relayOnce } from "./relay.js";

const N = Number(process.env.BENCH_EVENTS ?? (QUICK ? 2000 : 10_000));
const REDIS_URL = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";
const LATENCY_SECONDS = QUICK ? 1 : 2;

/** Waits until `child` lists agent `name` online (an agent on another instance shows within a second). */
async function seesAgent(child: Child, name: string): Promise<void> {
  for (let i = 0; i < 500; i++) {
    const { agents } = (await (await fetch(`${child.url}/agents`)).json()) as { agents: Array<{ id: string; online: boolean }> };
    if (agents.some((a) => a.id === name && a.online)) return;
    await sleep(20);
  }
  throw new Error(`${child.url} never saw agent ${name}`);
}

export async function clusterProc(): Promise<Section> {
  const prefix = `a2a-router-bench:${randomUUID()}:`;
  const env = { A2A_ROUTER_REDIS_PREFIX: prefix };
  const single = await startRouter();
  const a = await startRouter({ store: REDIS_URL, env });
  const b = await startRouter({ store: REDIS_URL, env });
  const onSingle = await BenchAgent.connect(single.url, "bench");
  const onA = await BenchAgent.connect(a.url, "bench");
  const via: Record<string, { child: Child; agent: BenchAgent }> = {
    single: { child: single, agent: onSingle },
    "agent's router": { child: a, agent: onA },
    "other router": { child: b, agent: onA },
  };
  let seq = 0;
  try {
    await seesAgent(b, "bench");
    for (const v of Object.values(via)) await relayOnce(v.child, v.agent, 1, `cpw-${seq++}`, 1000); // warm-up
    const rates = await alternate(Object.keys(via), (t) => relayOnce(via[t]!.child, via[t]!.agent, 1, `cp-${seq++}`, N));
    const lat = await alternate(Object.keys(via), async (t) => {
      const run = await paced(via[t]!.child, via[t]!.agent, 1, 1000, LATENCY_SECONDS, `cpl-${seq++}`);
      await run.done;
      return { p50: percentile(run.latencies, 50), p99: percentile(run.latencies, 99) };
    });
    const eps = (t: string) => median(rates.get(t)!.map((r) => r.eventsPerSec));
    const pick = (t: string, k: "p50" | "p99") => median(lat.get(t)!.map((r) => r[k]));
    const lines = Object.keys(via).map(
      (t) =>
        `${`stream on the ${t === "single" ? "single router (SQLite)" : t}`.padEnd(38)} ${fmt(eps(t)).padStart(7)} events/s (${fmt(eps(t) / eps("single"), 2)}x the single router)   latency p50 ${fmt(pick(t, "p50"), 2)} ms   p99 ${fmt(pick(t, "p99"), 2)} ms`,
    );
    for (const l of lines) log("  " + l);
    return {
      title: `Cluster, routers as child processes (two on one Redis, the agent on the first; ${fmt(N)} events a stream; target: the other router >= 0.8x the single)`,
      lines,
    };
  } finally {
    onSingle.close();
    onA.close();
    for (const c of [single, a, b]) await c.stop();
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
