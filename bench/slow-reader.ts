/**
 * A reader that never reads: its task produces BIG_MB of 64 KB statuses while 20 other streams run a
 * steady 500 events/s. Router RSS growth over idle, the others' p99 with and without the stalled reader,
 * and whether the stalled reader then gets every event in order. Router only (the bare bridge would
 * buffer the whole task). Twice: on the router's defaults (while the others' agent sends, the flooding agent is
 * held to `limits.hubSharedBytesPerSecond`), and with that limit off (it floods as fast as the router reads).
 */
import { once } from "node:events";
import { Agent } from "node:http";
import { Worker } from "node:worker_threads";
import type { FloodOptions } from "./flood-agent.js";
import { BenchAgent, eventText, fmt, log, percentile, QUICK, rpcCall, rssSampler, sendSubscribe, sleep, sseRequest, startRouter, type Section } from "./lib.js";
import { paced } from "./latency.js";

const BIG_MB = Number(process.env.BENCH_SLOW_MB ?? (QUICK ? 50 : 200));
const EVENT_KB = 64;
const SECONDS = QUICK ? 3 : 5;

/** The scenario on the router's defaults, then with the shared rate off (what the default buys the others). */
export async function slowReader(): Promise<Section> {
  const defaults = await slowReaderOnce({});
  const unlimited = await slowReaderOnce({ HUB_SHARED_BYTES_PER_SECOND: "0" });
  return {
    title: `Slow reader (${BIG_MB} MB task of ${EVENT_KB} KB statuses, one stalled stream, 20 others at 500 events/s)`,
    lines: [...defaults, "with limits.hubSharedBytesPerSecond = 0 (the flooding agent unlimited):", ...unlimited.map((l) => "  " + l)],
  };
}

async function slowReaderOnce(env: NodeJS.ProcessEnv): Promise<string[]> {
  const router = await startRouter({ env });
  const bg = await BenchAgent.connect(router.url, "bench");
  const n = Math.ceil((BIG_MB * 1024) / EVENT_KB);
  const flood: FloodOptions = { url: router.url, name: "big", events: n, eventKb: EVENT_KB };
  const big = new Worker(new URL("./flood-agent.js", import.meta.url), { workerData: flood });
  await once(big, "message");
  const http = new Agent({ keepAlive: true });
  try {
    await (await paced(router, bg, 20, 500, 1, "warm")).done;
    const without = await paced(router, bg, 20, 500, SECONDS, "calm");
    await without.done;
    await sleep(500);
    const idleKb = router.rssKb();

    const sampler = rssSampler(router.pid);
    let expected = 1;
    let inOrder = true;
    const slow = sseRequest(router.url + "/rpc", sendSubscribe("stalled", "big"), (data) => {
      const text = eventText(data)!;
      if (text !== "done" && parseInt(text, 10) !== expected++) inOrder = false;
    });
    await slow.opened;
    slow.res!.pause();
    const busy = await paced(router, bg, 20, 500, SECONDS, "busy");
    await busy.done;
    // The big task is done once its final status is stored.
    for (;;) {
      const r = (await rpcCall(router.url + "/rpc", { jsonrpc: "2.0", id: 1, method: "tasks/get", params: { id: "stalled" } }, http)) as {
        result?: { status: { state: string } };
      };
      if (r.result?.status.state === "completed") break;
      await sleep(100);
    }
    const peakKb = sampler.stop();
    slow.res!.resume();
    const got = await slow.done;
    const lines = [
      `router RSS: idle ${fmt(idleKb / 1024, 1)} MB, peak while the stalled task produced ${BIG_MB} MB: +${fmt((peakKb - idleKb) / 1024, 1)} MB (target: within 64 MB)`,
      `other clients' p99: ${fmt(percentile(without.latencies, 99), 2)} ms without the stalled reader, ${fmt(percentile(busy.latencies, 99), 2)} ms with it (${fmt(percentile(busy.latencies, 99) / percentile(without.latencies, 99), 2)}x; target <= 2x)`,
      `stalled reader afterwards: ${fmt(got)} of ${fmt(n + 1)} events${got === n + 1 && inOrder ? ", in order" : ", INCOMPLETE OR OUT OF ORDER"}`,
    ];
    for (const l of lines) log("  " + l);
    return lines;
  } finally {
    http.destroy();
    bg.close();
    big.postMessage("close");
    await once(big, "exit");
    await router.stop();
  }
}
