/**
 * Added latency: a steady RATE events/s spread over STREAMS streams, each event stamped with its send time
 * by the agent and timed at the client (agent and client share this process's clock). Router (SQLite) vs
 * the bare bridge; the figure is the router's percentile minus the bridge's.
 */
import {
  alternate,
  BenchAgent,
  eventText,
  fmt,
  log,
  median,
  nowMs,
  percentile,
  QUICK,
  sendSubscribe,
  sseRequest,
  startBridge,
  startRouter,
  type Child,
  type Section,
} from "./lib.js";

const STREAMS = 100;
const RATE = 1000;
const SECONDS = Number(process.env.BENCH_LATENCY_SECONDS ?? (QUICK ? 2 : 5));

export interface Paced {
  /** Per-event latencies in ms, in arrival order. */
  latencies: number[];
  /** Resolves once every stream ended. */
  done: Promise<void>;
}

/**
 * Opens `streams` streams on `child` and sends `rate` events/s over them, round robin, for `seconds`,
 * then completes every task. The first 10% of the run is warm-up and not recorded.
 */
export async function paced(child: Child, agent: BenchAgent, streams: number, rate: number, seconds: number, tag: string): Promise<Paced> {
  const latencies: number[] = [];
  const tasks: string[] = [];
  const started = new Promise<void>((resolve) => {
    agent.onExecute = (taskId) => {
      tasks.push(taskId);
      if (tasks.length === streams) resolve();
    };
  });
  let recordFrom = Infinity;
  const ends = Array.from(
    { length: streams },
    (_, i) =>
      sseRequest(child.url + "/rpc", sendSubscribe(`${tag}-${i}`, "bench"), (data) => {
        const text = eventText(data);
        if (!text || text === "done") return;
        const sent = Number(text);
        if (sent >= recordFrom) latencies.push(nowMs() - sent);
      }).done,
  );
  await started;
  const t0 = nowMs();
  recordFrom = t0 + seconds * 100;
  let sent = 0;
  const total = rate * seconds;
  await new Promise<void>((resolve) => {
    const tick = () => {
      const due = Math.min(total, Math.floor(((nowMs() - t0) * rate) / 1000));
      while (sent < due) agent.status(tasks[sent++ % streams]!, nowMs().toFixed(3));
      if (sent < total) setTimeout(tick, 1);
      else resolve();
    };
    tick();
  });
  for (const t of tasks) agent.complete(t);
  return { latencies, done: Promise.all(ends).then(() => undefined) };
}

export async function latency(): Promise<Section> {
  const children: Record<string, Child> = { router: await startRouter(), bridge: await startBridge() };
  const agents: Record<string, BenchAgent> = {};
  for (const [k, c] of Object.entries(children)) agents[k] = await BenchAgent.connect(c.url, "bench");
  let seq = 0;
  try {
    const res = await alternate(["router", "bridge"], async (t) => {
      const run = await paced(children[t]!, agents[t]!, STREAMS, RATE, SECONDS, `lat-${t}-${seq++}`);
      await run.done;
      return { p50: percentile(run.latencies, 50), p99: percentile(run.latencies, 99), n: run.latencies.length };
    });
    const pick = (t: string, k: "p50" | "p99") => median(res.get(t)!.map((x) => x[k]));
    const lines = [
      `router: p50 ${fmt(pick("router", "p50"), 2)} ms, p99 ${fmt(pick("router", "p99"), 2)} ms (${fmt(res.get("router")![0]!.n)} events timed per round)`,
      `bridge: p50 ${fmt(pick("bridge", "p50"), 2)} ms, p99 ${fmt(pick("bridge", "p99"), 2)} ms`,
      `added by the router: p50 ${fmt(pick("router", "p50") - pick("bridge", "p50"), 2)} ms, p99 ${fmt(pick("router", "p99") - pick("bridge", "p99"), 2)} ms`,
    ];
    for (const l of lines) log("  " + l);
    return { title: `Added latency (${RATE} events/s over ${STREAMS} streams for ${SECONDS} s, SQLite; target p99 <= 2 ms over the bridge)`, lines };
  } finally {
    for (const a of Object.values(agents)) a.close();
    for (const c of Object.values(children)) await c.stop();
  }
}
