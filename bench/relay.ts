/**
 * Relay: one hub agent pushes working statuses as fast as its socket takes them; clients read them as
 * SSE. Router (SQLite store) vs the bare ws -> SSE bridge, at 1 and at 100 concurrent streams.
 */
import { alternate, BenchAgent, cpuMs, fmt, log, median, QUICK, sendSubscribe, sseRequest, startBridge, startRouter, type Child, type Section } from "./lib.js";

const TOTAL = Number(process.env.BENCH_RELAY_EVENTS ?? (QUICK ? 10_000 : 40_000));
/** Events a task in the wide shapes: issue 33's 100 tasks of 2,000 each, and one task of as many read by 100 streams. */
const WIDE_PER = Number(process.env.BENCH_RELAY_WIDE_EVENTS ?? (QUICK ? 500 : 2000));

/** Pushes `n` statuses (of `textKind`, when given) then the completion, yielding to the socket every 256 frames. */
export async function pump(agent: BenchAgent, taskId: string, n: number, text: (i: number) => string = String, textKind?: "delta" | "progress"): Promise<void> {
  // Corked, so a burst leaves in one write instead of one syscall per frame: the load generator must not
  // be what limits the bridge.
  const socket = agent.socket;
  for (let i = 1; i <= n; i++) {
    if (i % 256 === 1) socket.cork();
    agent.status(taskId, text(i), textKind);
    if (i % 256 === 0) {
      socket.uncork();
      await agent.writable();
    }
  }
  socket.uncork();
  agent.complete(taskId);
}

export interface RelayResult {
  eventsPerSec: number;
  cpuPct: number;
}

/** Runs `streams` tasks of TOTAL/streams events each through `child`; events per second at the clients. */
export async function relayOnce(child: Child, agent: BenchAgent, streams: number, tag: string, total = TOTAL): Promise<RelayResult> {
  const per = Math.max(1, Math.floor(total / streams));
  agent.onExecute = (taskId) => void pump(agent, taskId, per);
  const cpu0 = cpuMs(child.pid);
  const self0 = process.cpuUsage();
  const t0 = performance.now();
  const counts = await Promise.all(Array.from({ length: streams }, (_, i) => sseRequest(child.url + "/rpc", sendSubscribe(`${tag}-${i}`, "bench")).done));
  const ms = performance.now() - t0;
  const cpu = cpuMs(child.pid) - cpu0;
  const self = process.cpuUsage(self0);
  if (process.env.BENCH_VERBOSE) console.log(`    ${tag}: bench process ${(((self.user + self.system) / 1000 / ms) * 100).toFixed(0)}% of a core`);
  const got = counts.reduce((a, b) => a + b, 0);
  if (got !== streams * (per + 1)) throw new Error(`relay: expected ${streams * (per + 1)} events, got ${got}`);
  return { eventsPerSec: (got / ms) * 1000, cpuPct: (cpu / ms) * 100 };
}

/**
 * One task of `per` events read by `streams` streams: the first sends it, the others resubscribe before the
 * agent starts, so every stream gets every event (a commit rendered once and written to each). Events/s is
 * deliveries in all (each stream's `per` + the final one) over the time from the agent's start.
 */
export async function fanOnce(child: Child, agent: BenchAgent, streams: number, per: number, tag: string): Promise<RelayResult> {
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  let executed!: () => void;
  const started = new Promise<void>((r) => (executed = r));
  agent.onExecute = (taskId) => {
    executed();
    void gate.then(() => pump(agent, taskId, per));
  };
  const first = sseRequest(child.url + "/rpc", sendSubscribe(tag, "bench"));
  await started;
  const others = Array.from({ length: streams - 1 }, () =>
    sseRequest(child.url + "/rpc", { jsonrpc: "2.0", id: 2, method: "tasks/resubscribe", params: { id: tag } }),
  );
  await Promise.all(others.map((s) => s.opened));
  const cpu0 = cpuMs(child.pid);
  const t0 = performance.now();
  release();
  const counts = await Promise.all([first, ...others].map((s) => s.done));
  const ms = performance.now() - t0;
  const cpu = cpuMs(child.pid) - cpu0;
  // A resubscription may open with a snapshot of the task (no id): counted by the check, not in the rate.
  if (counts.some((n) => n < per + 1)) throw new Error(`fan-out: a stream got ${Math.min(...counts)} of ${per + 1} events`);
  return { eventsPerSec: ((streams * (per + 1)) / ms) * 1000, cpuPct: (cpu / ms) * 100 };
}

/** The relay's shapes, each measured router against bridge side by side (BENCH_RELAY_SHAPES="1 stream|tasks of 2,000": those whose label holds one of these). */
const ALL_SHAPES: Array<{ label: string; run: (c: Child, a: BenchAgent, tag: string) => Promise<RelayResult> }> = [
  { label: "  1 stream", run: (c, a, tag) => relayOnce(c, a, 1, tag) },
  { label: `100 streams, 100 tasks of ${fmt(TOTAL / 100)}`, run: (c, a, tag) => relayOnce(c, a, 100, tag) },
  { label: `100 streams, 100 tasks of ${fmt(WIDE_PER)}`, run: (c, a, tag) => relayOnce(c, a, 100, tag, 100 * WIDE_PER) },
  { label: `100 streams, 1 task of ${fmt(WIDE_PER)}`, run: (c, a, tag) => fanOnce(c, a, 100, WIDE_PER, tag) },
];
const SHAPE_WORDS = process.env.BENCH_RELAY_SHAPES?.split("|").filter(Boolean);
const SHAPES = SHAPE_WORDS ? ALL_SHAPES.filter((s) => SHAPE_WORDS.some((w) => s.label.includes(w))) : ALL_SHAPES;

export async function relay(): Promise<Section> {
  const lines: string[] = [];
  const children: Record<string, Child> = { router: await startRouter(), bridge: await startBridge() };
  const agents: Record<string, BenchAgent> = {};
  for (const [k, c] of Object.entries(children)) agents[k] = await BenchAgent.connect(c.url, "bench");
  let seq = 0;
  try {
    for (const [k, c] of Object.entries(children)) await relayOnce(c, agents[k]!, 10, `warm-${k}`, 5000);
    for (const shape of SHAPES) {
      const res = await alternate(["router", "bridge"], (t) => shape.run(children[t]!, agents[t]!, `r-${t}-${seq++}`));
      const r = median(res.get("router")!.map((x) => x.eventsPerSec));
      const b = median(res.get("bridge")!.map((x) => x.eventsPerSec));
      const rc = median(res.get("router")!.map((x) => x.cpuPct));
      const bc = median(res.get("bridge")!.map((x) => x.cpuPct));
      lines.push(
        `${shape.label}: router ${fmt(r)} events/s (${fmt(rc)}% of a core), bridge ${fmt(b)} events/s (${fmt(bc)}% of a core): ${fmt(r / b, 2)}x the bridge`,
      );
      log("  " + lines[lines.length - 1]);
    }
  } finally {
    for (const a of Object.values(agents)) a.close();
    for (const c of Object.values(children)) await c.stop();
  }
  return { title: `Relay (SQLite store; ${fmt(TOTAL)} events a measurement, 100 x ${fmt(WIDE_PER)} in the wide shapes; target >= 0.5x the bridge)`, lines };
}
