/**
 * `npm run bench`: throughput and memory of the router's hot path, each measured side by side with a
 * baseline in the same run (these machines are shared and noisy; absolute numbers vary, ratios hold).
 *
 *  1. stream throughput: N events through the router (agent -> log -> fan-out -> SSE) vs. a bare SSE
 *     server writing the same frames with no log, per store kind;
 *  2. fan-out: 1 vs 10 concurrent streams on one task;
 *  3. slow reader: heap growth while one stream does not read vs. no stream at all.
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { startRouter, type RunningRouter } from "../router/index.js";
import type { AgentConnector } from "../router/core/agent.js";
import { agentText, type AgentUpdate } from "../router/core/model.js";
import { RedisStore } from "../router/store/index.js";
import { Redis } from "ioredis";

const N = Number(process.env.BENCH_EVENTS ?? 20000);
const gc = (globalThis as { gc?: () => void }).gc;

function counter(id: string, n: number): AgentConnector {
  return {
    info: { id, name: id, description: "", transport: "hosted", streaming: true, skills: [] },
    isOnline: () => true,
    async *execute(): AsyncGenerator<AgentUpdate> {
      for (let i = 1; i <= n; i++) yield { kind: "artifact", artifact: { artifactId: "a", parts: [{ kind: "text", text: `token ${i} ` }] }, append: i > 1 };
      yield { kind: "status", status: { state: "completed", message: agentText("done") }, final: true };
    },
  };
}

async function readStream(url: string, body: object): Promise<number> {
  const res = await fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  const reader = res.body!.getReader();
  let bytes = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return bytes;
    bytes += value.length;
  }
}

const send = (id: string, agent: string) => ({ jsonrpc: "2.0", id: 1, method: "tasks/sendSubscribe", params: { id, message: { role: "user", parts: [{ type: "text", text: "go" }] }, metadata: { agent } } });

async function timed(fn: () => Promise<unknown>): Promise<number> {
  const t0 = performance.now();
  await fn();
  return performance.now() - t0;
}

/** A bare SSE server writing N precomputed-shape frames: the floor any router overhead is measured against. */
async function baselineServer(): Promise<{ url: string; close(): void }> {
  const server = createServer((req, res) => {
    res.writeHead(200, { "content-type": "text/event-stream" });
    let i = 0;
    const pump = () => {
      while (i < N) {
        i++;
        const frame = `id: ${i}\ndata: ${JSON.stringify({ jsonrpc: "2.0", id: 1, result: { id: "t", artifact: { parts: [{ type: "text", text: `token ${i} ` }], index: 0, append: i > 1 } } })}\n\n`;
        if (!res.write(frame)) return void res.once("drain", pump);
      }
      res.end();
    };
    req.resume();
    pump();
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`, close: () => server.close() };
}

async function withRouter<T>(spec: string, fn: (r: RunningRouter) => Promise<T>): Promise<T> {
  // Redis: a prefix of the bench's own, removed afterwards, so runs leave nothing in the server.
  const prefix = `a2a-bench-${process.pid}-${Date.now().toString(36)}:`;
  const redis = spec.startsWith("redis://") ? new RedisStore(spec, { prefix }) : undefined;
  if (redis) await redis.connect();
  const r = await startRouter({ port: 0, store: redis ?? spec, hostedAgents: [counter("count", N)] });
  try {
    return await fn(r);
  } finally {
    await r.close();
    if (redis) await dropKeys(spec, prefix);
  }
}

async function dropKeys(url: string, prefix: string): Promise<void> {
  const client = new Redis(url);
  try {
    for (;;) {
      const keys = await client.keys(`${prefix}*`);
      if (keys.length === 0) return;
      await client.del(...keys);
    }
  } finally {
    client.disconnect();
  }
}

const rate = (ms: number) => `${Math.round((N / ms) * 1000).toLocaleString("en")} events/s`;
let seq = 0;
const run = Date.now().toString(36);

async function main() {
  console.log(`a2a-router bench: ${N} events per task, node ${process.version}\n`);
  const base = await baselineServer();
  await readStream(base.url, {}); // warm-up
  const baseMs = await timed(() => readStream(base.url, {}));
  base.close();
  console.log(`1. stream throughput (one client)`);
  console.log(`   bare SSE server (no log):  ${baseMs.toFixed(0)} ms  ${rate(baseMs)}`);
  for (const store of ["memory", "sqlite::memory:", "redis://127.0.0.1:6379"]) {
    try {
      const ms = await withRouter(store, async (r) => {
        await readStream(r.url + "/rpc", send(`warm-${run}-${seq++}`, "count"));
        return timed(() => readStream(r.url + "/rpc", send(`b-${run}-${seq++}`, "count")));
      });
      console.log(`   router, ${store.padEnd(24)} ${ms.toFixed(0)} ms  ${rate(ms)}  (${(ms / baseMs).toFixed(2)}x the bare server)`);
    } catch (err) {
      console.log(`   router, ${store}: skipped (${(err as Error).message})`);
    }
  }

  console.log(`\n2. fan-out (memory store)`);
  await withRouter("memory", async (r) => {
    const one = await timed(() => readStream(r.url + "/rpc", send(`f1-${seq++}`, "count")));
    const ten = await timed(async () => {
      const id = `f10-${seq++}`;
      const first = readStream(r.url + "/rpc", send(id, "count"));
      while (!(await r.engine.getTask(id))) await new Promise((res) => setImmediate(res));
      const others = Array.from({ length: 9 }, () =>
        fetch(r.url + "/rpc", { method: "POST", headers: { "last-event-id": "0" }, body: JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tasks/resubscribe", params: { id } }) }).then(async (res) => {
          const reader = res.body!.getReader();
          while (!(await reader.read()).done);
        }),
      );
      await Promise.all([first, ...others]);
    });
    console.log(`   1 stream:   ${one.toFixed(0)} ms`);
    console.log(`   10 streams: ${ten.toFixed(0)} ms  (${(ten / one).toFixed(2)}x the time for 10x the delivered events)`);
  });

  console.log(`\n3. slow reader memory (memory store, heap after GC${gc ? "" : " unavailable: run with --expose-gc"})`);
  await withRouter("memory", async (r) => {
    const heap = () => {
      gc?.();
      return process.memoryUsage().heapUsed;
    };
    const waitDone = async (id: string) => {
      for (;;) {
        const t = await r.engine.getTask(id);
        if (t?.status.state === "completed") return;
        await new Promise((res) => setTimeout(res, 5));
      }
    };
    await readStream(r.url + "/rpc", send(`warm2-${seq++}`, "count"));
    const before1 = heap();
    await fetch(r.url + "/rpc", { method: "POST", body: JSON.stringify({ ...send(`nobody-${seq++}`, "count"), method: "tasks/send" }) });
    const noReader = heap() - before1;
    const before2 = heap();
    const id = `stalled-${seq++}`;
    const res = await fetch(r.url + "/rpc", { method: "POST", body: JSON.stringify(send(id, "count")) });
    await waitDone(id);
    const stalled = heap() - before2;
    await res.body!.cancel();
    const mb = (b: number) => `${(b / 1048576).toFixed(1)} MiB`;
    console.log(`   task with no stream:        heap +${mb(noReader)}`);
    console.log(`   task with a stalled stream: heap +${mb(stalled)}  (buffer per stream is capped at 512 events; the rest is read from the log)`);
  });
}

await main();
