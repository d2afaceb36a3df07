/**
 * Cost of growth: C concurrent tasks (1, 10, 100, 1,000), each streamed to its own client as fast as the
 * agent can push, TOTAL events in all (at least 20 per task). Throughput at the clients, p99 latency from
 * the agent's send to the client, and the router's peak RSS.
 */
import { BenchAgent, eventText, fmt, log, nowMs, percentile, QUICK, rssSampler, sendSubscribe, sleep, sseRequest, startRouter, type Section } from "./lib.js";
import { pump } from "./relay.js";

const TOTAL = QUICK ? 10_000 : 40_000;
const LEVELS = [1, 10, 100, 1000];

export async function growth(): Promise<Section> {
  const router = await startRouter();
  const agent = await BenchAgent.connect(router.url, "bench");
  const lines = [`${"tasks".padStart(5)}  ${"events/s".padStart(9)}  ${"p99 ms".padStart(8)}  ${"peak RSS MB".padStart(11)}`];
  try {
    await sleep(300);
    for (const c of LEVELS) {
      const per = Math.max(20, Math.floor(TOTAL / c));
      agent.onExecute = (taskId) => void pump(agent, taskId, per, () => nowMs().toFixed(3));
      const lat: number[] = [];
      const sampler = rssSampler(router.pid);
      const t0 = performance.now();
      const counts = await Promise.all(
        Array.from(
          { length: c },
          (_, i) =>
            sseRequest(router.url + "/rpc", sendSubscribe(`g${c}-${i}`, "bench"), (data) => {
              const text = eventText(data);
              if (text && text !== "done") lat.push(nowMs() - Number(text));
            }).done,
        ),
      );
      const ms = performance.now() - t0;
      const peak = sampler.stop();
      const got = counts.reduce((a, b) => a + b, 0);
      lines.push(
        `${String(c).padStart(5)}  ${fmt((got / ms) * 1000).padStart(9)}  ${fmt(percentile(lat, 99), 1).padStart(8)}  ${fmt(peak / 1024, 1).padStart(11)}`,
      );
      log("  " + lines[lines.length - 1]);
    }
  } finally {
    agent.close();
    await router.stop();
  }
  return { title: `Cost of growth (router, SQLite; ${fmt(TOTAL)} events per level, at least 20 per task)`, lines };
}
