/**
 * Catching up: streams resume a finished task from its start (`tasks/resubscribe`, `Last-Event-ID: 0`) and
 * read its whole log from the store: one stream alone, and ten at once (the shared log hands each page to all
 * of them). A fresh task each time, so no measurement reads what an earlier one left. Router only: the bare
 * bridge keeps no log to resume from.
 */
import { fmt, log, median, QUICK, ROUNDS, sendSubscribe, sseRequest, startRouter, type Section } from "./lib.js";

const EVENTS = QUICK ? 20_000 : 100_000;
const STREAMS = [1, 10];

export async function catchUp(): Promise<Section> {
  const router = await startRouter();
  const url = router.url + "/rpc";
  const rates = new Map<number, number[]>(STREAMS.map((k) => [k, []]));
  let tasks = 0;
  try {
    for (let round = 0; round < ROUNDS; round++) {
      for (const k of round % 2 ? [...STREAMS].reverse() : STREAMS) {
        const id = `catch-up-${tasks++}`;
        // The hosted `count` agent streams EVENTS statuses and completes: a log of EVENTS + 1 events.
        await sseRequest(url, sendSubscribe(id, "count", String(EVENTS))).done;
        const resume = { jsonrpc: "2.0", id: 2, method: "tasks/resubscribe", params: { id } };
        const t0 = performance.now();
        const counts = await Promise.all(Array.from({ length: k }, () => sseRequest(url, resume, undefined, { "Last-Event-ID": "0" }).done));
        const ms = performance.now() - t0;
        if (counts.some((n) => n !== EVENTS + 1)) throw new Error(`catch-up: expected ${EVENTS + 1} events per stream, got ${counts.join(", ")}`);
        rates.get(k)!.push((k * (EVENTS + 1) * 1000) / ms);
      }
    }
  } finally {
    await router.stop();
  }
  const lines = STREAMS.map((k) => {
    const all = median(rates.get(k)!);
    return `${String(k).padStart(2)} stream(s): ${fmt(all)} events/s in all, ${fmt(all / k)} per stream`;
  });
  for (const line of lines) log("  " + line);
  return { title: `Catching up (tasks/resubscribe from the start of a finished ${fmt(EVENTS)}-event task, SQLite store; router only)`, lines };
}
