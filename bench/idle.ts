/**
 * Idle streams: K open SSE streams with heartbeats (every 2 s here) and nothing else happening; router RSS
 * growth per stream. 100 tasks are working (their agent never answers) and the other streams resubscribe
 * to them, so the figure is what a stream costs, not a task. The bridge's figure for the same number of
 * bare streams is printed alongside.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { BenchAgent, fmt, log, QUICK, sendSubscribe, sleep, sseRequest, startBridge, startRouter, type Child, type Section, type SseStream } from "./lib.js";

/**
 * How many streams, one measurement each: issue 12 and issue 33 measured 2,000, this bench 10,000, and what
 * grows once whatever the count (new space, heap pages) weighs five times as much a stream at 2,000.
 */
const COUNTS = (process.env.BENCH_IDLE_STREAMS ?? (QUICK ? "2000" : "2000,10000")).split(",").map(Number);
/** BENCH_IDLE_TASK_PER_STREAM=1: every stream its own task (issue 33's shape) instead of 100 tasks resubscribed. */
const TASK_PER_STREAM = process.env.BENCH_IDLE_TASK_PER_STREAM === "1";
const TASKS = 100;
/**
 * BENCH_IDLE_SNAPSHOT=dir: the process's memory map (smaps, smaps_rollup, status) and threads before the first
 * stream and at the measurement, into dir, to tell where RSS outside the main isolate's heap goes. With it:
 * - a router started with `--report-on-signal` (BENCH_ROUTER_NODE_ARGS) gets a SIGUSR2 at each, and writes a
 *   diagnostic report: every isolate's heap, its workers' included;
 * - BENCH_IDLE_MALLOC_STATS=1: glibc's per-arena stats at each (gdb calls malloc_stats(), printed on the child's
 *   stderr, so with BENCH_VERBOSE), and at the measurement how much malloc_trim(0) returns (after the figure);
 * - a router run under heaptrack (BENCH_ROUTER_ENV="LD_PRELOAD=... DUMP_HEAPTRACK_OUTPUT=file") stops recording
 *   at the measurement, so heaptrack's "leaked" is what was allocated and still held then.
 * Diagnostics only: gdb pauses the process it attaches to.
 */
const SNAPSHOT_DIR = process.env.BENCH_IDLE_SNAPSHOT;
let snapshotSeq = 0;
function snapshot(child: Child, who: string, count: number, when: "before" | "after"): void {
  if (!SNAPSHOT_DIR) return;
  mkdirSync(SNAPSHOT_DIR, { recursive: true });
  const name = join(SNAPSHOT_DIR, `${snapshotSeq++}-${who}-${count}-${child.pid}-${when}`);
  // Read, not copied: /proc's files say they are empty, and a copy takes them at their word.
  for (const f of ["smaps", "smaps_rollup", "status"]) writeFileSync(`${name}.${f}`, readFileSync(`/proc/${child.pid}/${f}`));
  const threads = readdirSync(`/proc/${child.pid}/task`).map((t) => `${t} ${readFileSync(`/proc/${child.pid}/task/${t}/comm`, "utf8").trim()}`);
  writeFileSync(`${name}.threads`, threads.join("\n") + "\n");
  const gdb = (...calls: string[]): void => {
    execFileSync("gdb", ["-p", String(child.pid), "-batch", ...calls.flatMap((c) => ["-ex", `call ${c}`])], { stdio: "ignore" });
  };
  if (who === "router" && when === "after" && process.env.BENCH_ROUTER_ENV?.includes("heaptrack")) gdb("(void)heaptrack_stop()");
  if (process.env.BENCH_IDLE_MALLOC_STATS) {
    const rss = child.rssKb();
    gdb("(void)malloc_stats()", ...(when === "after" ? ["(int)malloc_trim(0)"] : []));
    process.stderr.write(`malloc_stats ${who} ${when}: rss ${rss} -> ${child.rssKb()} KB${when === "after" ? " after malloc_trim" : ""}\n`);
  }
  // SIGUSR2's default action ends a process: only a router that reports on it gets one.
  if (who === "router" && process.env.BENCH_ROUTER_NODE_ARGS?.includes("--report-on-signal")) process.kill(child.pid, "SIGUSR2");
}
/**
 * BENCH_IDLE_HOLD_MS: keep the streams open this long after the measurement, printing RSS every 2 s (stderr), to
 * see whether it falls later (V8's memory reducer, the checkpointer).
 */
const HOLD_MS = Number(process.env.BENCH_IDLE_HOLD_MS ?? 0);
/** BENCH_IDLE_HEARTBEAT_MS: issue 33 measured with 1 s. */
const HEARTBEAT_MS = Number(process.env.BENCH_IDLE_HEARTBEAT_MS ?? 2000);

async function perStream(child: Child, resubscribe: boolean, tag: string, count: number, who: string): Promise<{ kb: number; pings: number }> {
  const agent = await BenchAgent.connect(child.url, "bench");
  const streams: SseStream[] = [];
  try {
    await sleep(500);
    const before = child.rssKb();
    snapshot(child, who, count, "before");
    for (let i = 0; i < count; i += 500) {
      const batch: SseStream[] = [];
      for (let j = i; j < Math.min(count, i + 500); j++) {
        const body =
          resubscribe && j >= TASKS
            ? { jsonrpc: "2.0", id: 2, method: "tasks/resubscribe", params: { id: `${tag}-${j % TASKS}` } }
            : sendSubscribe(`${tag}-${j}`, "bench");
        const s = sseRequest(child.url + "/rpc", body);
        s.done.catch(() => {});
        batch.push(s);
      }
      await Promise.all(batch.map((s) => s.opened));
      // A refused stream (a 503 past a connection bound) answers at once: it is not an idle stream.
      const refused = batch.find((s) => s.res?.statusCode !== 200);
      if (refused) throw new Error(`stream ${streams.length + batch.indexOf(refused)} refused: HTTP ${refused.res?.statusCode}`);
      streams.push(...batch);
    }
    // Past one heartbeat, so every stream's timer has fired (and re-armed) at least once.
    await sleep(Math.max(3000, HEARTBEAT_MS + 1000));
    const after = child.rssKb();
    snapshot(child, who, count, "after");
    let pings = 0;
    const probe = streams[streams.length - 1]!.res!;
    probe.on("data", (c: Buffer | string) => (pings += String(c).split(": ping").length - 1));
    await sleep(HEARTBEAT_MS + 200);
    for (let t = 2000; t <= HOLD_MS; t += 2000) {
      await sleep(2000);
      process.stderr.write(`hold ${who} +${t} ms: ${fmt((child.rssKb() - before) / count, 1)} KB a stream\n`);
    }
    return { kb: (after - before) / count, pings };
  } finally {
    for (const s of streams) s.close();
    agent.close();
  }
}

export async function idle(): Promise<Section> {
  const env = { HEARTBEAT_MS: String(HEARTBEAT_MS) };
  const lines: string[] = [];
  for (const streams of COUNTS) {
    const router = await startRouter({ env });
    const r = await perStream(router, !TASK_PER_STREAM, `idle${streams}`, streams, "router").finally(() => router.stop());
    const bridge = await startBridge(env);
    const b = await perStream(bridge, false, `idle${streams}`, streams, "bridge").finally(() => bridge.stop());
    lines.push(
      `${fmt(streams).padStart(6)} streams: router ${fmt(r.kb, 1)} KB RSS per idle stream${r.pings ? " (heartbeats flowing)" : " (NO heartbeat seen)"}, bridge ${fmt(b.kb, 1)} KB`,
    );
    log("  " + lines[lines.length - 1]);
  }
  const shape = TASK_PER_STREAM ? "a task each" : `${TASKS} working tasks, the other streams resubscribed`;
  return { title: `Idle streams (SSE, ${shape}, heartbeat every ${HEARTBEAT_MS / 1000} s, RSS 3 s after the last opened; target <= 25 KB each)`, lines };
}
