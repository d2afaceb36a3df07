/**
 * The request hop: `tasks/send` to the router's hosted echo (SQLite store) vs @a2a-js/sdk's own
 * DefaultRequestHandler + express serving the same echo over `message/send`, closed loop at 1 and 50
 * concurrent clients; then one stream of 1,000 events (`tasks/sendSubscribe` to the hosted `count` vs
 * the SDK's `message/stream`).
 */
import { Agent } from "node:http";
import { randomUUID } from "node:crypto";
import {
  alternate,
  cpuMs,
  fmt,
  log,
  median,
  percentile,
  QUICK,
  rpcCall,
  sseRequest,
  startCanned,
  startRouter,
  startSdkEcho,
  type Child,
  type Section,
} from "./lib.js";

const SECONDS = Number(process.env.BENCH_HOP_SECONDS ?? (QUICK ? 1 : 3));
const STREAM_EVENTS = 1000;

const routerSend = (text: string) => ({
  jsonrpc: "2.0",
  id: 1,
  method: "tasks/send",
  params: { id: randomUUID(), message: { role: "user", parts: [{ type: "text", text }] }, metadata: { agent: "echo" } },
});
const sdkMessage = (method: string, text: string) => ({
  jsonrpc: "2.0",
  id: 1,
  method,
  params: { message: { kind: "message", messageId: randomUUID(), role: "user", parts: [{ kind: "text", text }] } },
});

/** `pid`: the server's process, whose CPU a request (all its threads) is reported: under load the figure moved least. */
async function closedLoop(url: string, body: () => object, clients: number, pid: number): Promise<{ rps: number; p99: number; cpuUs: number }> {
  const cpu0 = cpuMs(pid);
  const agent = new Agent({ keepAlive: true, maxSockets: clients });
  const lat: number[] = [];
  const end = performance.now() + SECONDS * 1000;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: clients }, async () => {
      while (performance.now() < end) {
        const s = performance.now();
        const r = (await rpcCall(url, body(), agent)) as { error?: { message: string } };
        if (r.error) throw new Error(r.error.message);
        lat.push(performance.now() - s);
      }
    }),
  );
  const ms = performance.now() - t0;
  agent.destroy();
  return { rps: (lat.length / ms) * 1000, p99: percentile(lat, 99), cpuUs: ((cpuMs(pid) - cpu0) * 1000) / lat.length };
}

export async function hop(): Promise<Section> {
  const children: Record<string, Child> = {
    router: await startRouter(),
    // The same router on its memory store: what the durable commit costs, side by side.
    memory: await startRouter({ store: "memory" }),
    sdk: await startSdkEcho(),
    raw: await startCanned("raw"),
    express: await startCanned("express"),
  };
  const isRouter = (t: string) => t === "router" || t === "memory";
  // "v03": the SQLite router on `message/send` at the echo's own endpoint, the request the SDK gets (router-made
  // ids: no read of a client-named task before the commit), beside v0.1 `tasks/send`.
  const url = (t: string) => (t === "v03" ? children.router!.url + "/agents/echo" : isRouter(t) ? children[t]!.url + "/rpc" : children[t]!.url + "/");
  const pid = (t: string) => (t === "v03" ? children.router! : children[t]!).pid;
  const body = (t: string) => () => (isRouter(t) ? routerSend("hello") : sdkMessage("message/send", "hello"));
  const lines: string[] = [];
  try {
    const targets = ["router", "v03", "memory", "sdk", "raw", "express"];
    for (const t of targets) await closedLoop(url(t), body(t), 10, pid(t)); // warm-up
    for (const clients of [1, 50]) {
      const res = await alternate(targets, (t) => closedLoop(url(t), body(t), clients, pid(t)));
      const rps = (t: string) => median(res.get(t)!.map((x) => x.rps));
      const p99 = (t: string) => median(res.get(t)!.map((x) => x.p99));
      const cpu = (t: string) => median(res.get(t)!.map((x) => x.cpuUs));
      lines.push(
        `${String(clients).padStart(2)} client(s): router ${fmt(rps("router"))} req/s p99 ${fmt(p99("router"), 2)} ms; sdk ${fmt(rps("sdk"))} req/s p99 ${fmt(p99("sdk"), 2)} ms: ${fmt(rps("router") / rps("sdk"), 2)}x its req/s, p99 ${fmt(p99("router") / p99("sdk"), 2)}x`,
        // The floor: a canned answer, no work. 1.5x the SDK above what these reach is out of any server's reach.
        `    floor, canned answers: node:http ${fmt(rps("raw"))} req/s (${fmt(rps("raw") / rps("sdk"), 2)}x the sdk), express ${fmt(rps("express"))} req/s (${fmt(rps("express") / rps("sdk"), 2)}x)`,
        `    the router on message/send (the SDK's request, router-made ids): ${fmt(rps("v03"))} req/s (${fmt(rps("v03") / rps("sdk"), 2)}x the sdk), p99 ${fmt(p99("v03"), 2)} ms (${fmt(p99("v03") / p99("sdk"), 2)}x)`,
        `    the router on its memory store (no durable commit): ${fmt(rps("memory"))} req/s (${fmt(rps("memory") / rps("sdk"), 2)}x the sdk), p99 ${fmt(p99("memory"), 2)} ms (${fmt(p99("memory") / p99("sdk"), 2)}x)`,
        // Each server's CPU a request (its process, all threads): what it costs, which load moves less than req/s.
        `    CPU a request: router ${fmt(cpu("router"))} us, message/send ${fmt(cpu("v03"))} us, memory store ${fmt(cpu("memory"))} us; sdk ${fmt(cpu("sdk"))} us`,
      );
      for (const line of lines.slice(-5)) log("  " + line);
    }
    const stream = async (t: string) => {
      // One stream per round: the SDK takes seconds for one (its event bus is far slower than the router).
      const reps = 1;
      const rates: number[] = [];
      for (let i = 0; i < reps; i++) {
        const t0 = performance.now();
        const req =
          t === "router"
            ? {
                ...routerSend(String(STREAM_EVENTS)),
                method: "tasks/sendSubscribe",
                params: {
                  ...routerSend("").params,
                  message: { role: "user", parts: [{ type: "text", text: String(STREAM_EVENTS) }] },
                  metadata: { agent: "count" },
                },
              }
            : sdkMessage("message/stream", `count:${STREAM_EVENTS}`);
        const n = await sseRequest(url(t), req).done;
        if (n < STREAM_EVENTS) throw new Error(`${t} streamed ${n} events`);
        rates.push((n / (performance.now() - t0)) * 1000);
      }
      return median(rates);
    };
    await stream("router");
    await stream("sdk");
    const res = await alternate(["router", "sdk"], stream);
    const r = median(res.get("router")!);
    const s = median(res.get("sdk")!);
    lines.push(`stream of ${STREAM_EVENTS} events: router ${fmt(r)} events/s, sdk ${fmt(s)} events/s: ${fmt(r / s, 2)}x`);
    log("  " + lines[lines.length - 1]);
  } finally {
    for (const c of Object.values(children)) await c.stop();
  }
  return { title: `Request hop vs @a2a-js/sdk (DefaultRequestHandler + express, in-memory store; router on SQLite; target >= 1.5x, p99 no worse)`, lines };
}
