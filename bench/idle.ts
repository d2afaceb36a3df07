/**
 * Idle streams: K open SSE streams with heartbeats (every 2 s here) and nothing else happening; router RSS
 * growth per stream. 100 tasks are working (their agent never answers) and the other streams resubscribe
 * to them, so the figure is what a stream costs, not a task. The bridge's figure for the same number of
 * bare streams is printed alongside.
 */
import { BenchAgent, fmt, log, QUICK, sendSubscribe, sleep, sseRequest, startBridge, startRouter, type Child, type Section, type SseStream } from "./lib.js";

const STREAMS = Number(process.env.BENCH_IDLE_STREAMS ?? (QUICK ? 2000 : 10_000));
const TASKS = 100;
const HEARTBEAT_MS = 2000;

async function perStream(child: Child, resubscribe: boolean, tag: string): Promise<{ kb: number; pings: number }> {
  const agent = await BenchAgent.connect(child.url, "bench");
  const streams: SseStream[] = [];
  try {
    await sleep(500);
    const before = child.rssKb();
    for (let i = 0; i < STREAMS; i += 500) {
      const batch: SseStream[] = [];
      for (let j = i; j < Math.min(STREAMS, i + 500); j++) {
        const body =
          resubscribe && j >= TASKS
            ? { jsonrpc: "2.0", id: 2, method: "tasks/resubscribe", params: { id: `${tag}-${j % TASKS}` } }
            : sendSubscribe(`${tag}-${j}`, "bench");
        const s = sseRequest(child.url + "/rpc", body);
        s.done.catch(() => {});
        batch.push(s);
      }
      await Promise.all(batch.map((s) => s.opened));
      streams.push(...batch);
    }
    // Past one heartbeat, so every stream's timer has fired (and re-armed) at least once.
    await sleep(HEARTBEAT_MS + 1000);
    const after = child.rssKb();
    let pings = 0;
    const probe = streams[streams.length - 1]!.res!;
    probe.on("data", (c: Buffer | string) => (pings += String(c).split(": ping").length - 1));
    await sleep(HEARTBEAT_MS + 200);
    return { kb: (after - before) / STREAMS, pings };
  } finally {
    for (const s of streams) s.close();
    agent.close();
  }
}

export async function idle(): Promise<Section> {
  const env = { HEARTBEAT_MS: String(HEARTBEAT_MS) };
  const router = await startRouter({ env });
  const r = await perStream(router, true, "idle").finally(() => router.stop());
  const bridge = await startBridge(env);
  const b = await perStream(bridge, false, "idle").finally(() => bridge.stop());
  const lines = [
    `router: ${fmt(r.kb, 1)} KB RSS per idle stream (${fmt(STREAMS)} streams${r.pings ? ", heartbeats flowing" : ", NO heartbeat seen"})`,
    `bridge: ${fmt(b.kb, 1)} KB RSS per idle stream`,
  ];
  for (const l of lines) log("  " + l);
  return { title: `Idle streams (${fmt(STREAMS)} SSE streams, heartbeat every ${HEARTBEAT_MS / 1000} s; target <= 25 KB each)`, lines };
}
