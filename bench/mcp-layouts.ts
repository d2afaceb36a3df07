/**
 * What the SDK's MCP client costs a progress notification as a function of how the server lays out the
 * stream (docs/benchmarks.md, fifteenth pass): a canned Streamable HTTP server in a child process answers a
 * `tools/call` with N progress frames pre-built in one layout (the router's: `event: message`, a call event
 * id, joined into 32 KB writes; or without the event line, without ids, with short ids, in other write
 * sizes), then the result. The client (this process) reports events/s and its CPU an event, layouts
 * alternating turn by turn. Run: node dist/bench/mcp-layouts.js [events] [rounds] [layout indexes]
 */
import { fork } from "node:child_process";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { median } from "./lib.js";

interface Layout {
  name: string;
  /** One progress frame; `id` is the router's call event id of the event. */
  frame(id: string, token: number, seq: number): string;
  /** Characters a write holds (0: every frame its own write). */
  writeChars: number;
  /** Paced: at most this many events a second (writes spaced out), below what the client reads. */
  perSec?: number;
}

const ROUTER_ID = (seq: number) => `c1.WzEsIjNmMmM0ZTZhLTk1ZjAtNGQ3OC1hNzI1LTAxZmE2ZTQ1MGRiNyIsMCwxXQ.${seq}`;
const json = (token: number, seq: number) =>
  `{"method":"notifications/progress","params":{"progressToken":${token},"progress":${seq},"message":"ev${seq}."},"jsonrpc":"2.0"}`;

const LAYOUTS: Layout[] = [
  { name: "router (event line, call id, 32 KB writes)", frame: (id, t, s) => `event: message\nid: ${id}\ndata: ${json(t, s)}\n\n`, writeChars: 32 * 1024 },
  { name: "no event line", frame: (id, t, s) => `id: ${id}\ndata: ${json(t, s)}\n\n`, writeChars: 32 * 1024 },
  { name: "no id", frame: (_id, t, s) => `event: message\ndata: ${json(t, s)}\n\n`, writeChars: 32 * 1024 },
  { name: "short id (seq)", frame: (_id, t, s) => `event: message\nid: ${s}\ndata: ${json(t, s)}\n\n`, writeChars: 32 * 1024 },
  { name: "4 KB writes", frame: (id, t, s) => `event: message\nid: ${id}\ndata: ${json(t, s)}\n\n`, writeChars: 4 * 1024 },
  { name: "256 KB writes", frame: (id, t, s) => `event: message\nid: ${id}\ndata: ${json(t, s)}\n\n`, writeChars: 256 * 1024 },
  { name: "a write a frame (the SDK server's)", frame: (id, t, s) => `event: message\nid: ${id}\ndata: ${json(t, s)}\n\n`, writeChars: 0 },
  {
    name: "router's, paced to 20,000 events/s",
    frame: (id, t, s) => `event: message\nid: ${id}\ndata: ${json(t, s)}\n\n`,
    writeChars: 32 * 1024,
    perSec: 20_000,
  },
];

/** The canned server (child process): initialize, initialized, and tools/call answered in the layout its arguments name. */
function serve(): void {
  const http = createServer((req, res) => {
    let body = "";
    req.on("data", (c: Buffer) => (body += c));
    req.on("end", () => {
      if (req.method !== "POST") return void res.writeHead(405).end();
      const msg = JSON.parse(body) as { id?: number; method: string; params?: { arguments?: { message?: string }; _meta?: { progressToken?: number } } };
      if (msg.method === "initialize") {
        res.writeHead(200, { "content-type": "application/json", "mcp-session-id": "s1" });
        return void res.end(
          JSON.stringify({
            jsonrpc: "2.0",
            id: msg.id,
            result: { protocolVersion: "2025-11-25", capabilities: { tools: {} }, serverInfo: { name: "canned", version: "1" } },
          }),
        );
      }
      if (msg.id === undefined) return void res.writeHead(202).end();
      const [layoutIndex, n] = (msg.params?.arguments?.message ?? "0 1").split(" ").map(Number) as [number, number];
      const layout = LAYOUTS[layoutIndex]!;
      const token = msg.params?._meta?.progressToken ?? 0;
      res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache", "mcp-session-id": "s1" });
      let seq = 1;
      const t0 = performance.now();
      const pump = (): void => {
        let chunk = "";
        while (seq <= n) {
          chunk += layout.frame(ROUTER_ID(seq), token, seq);
          seq++;
          if (chunk.length >= layout.writeChars) {
            const ok = res.write(chunk);
            chunk = "";
            const ahead = layout.perSec ? (seq / layout.perSec) * 1000 - (performance.now() - t0) : 0;
            if (ahead > 1) return void setTimeout(pump, ahead);
            if (!ok) return void res.once("drain", pump);
          }
        }
        if (chunk) res.write(chunk);
        res.end(`event: message\ndata: {"result":{"content":[{"type":"text","text":"done"}]},"jsonrpc":"2.0","id":${msg.id}}\n\n`);
      };
      pump();
    });
  });
  http.listen(0, "127.0.0.1", () => process.send!({ url: `http://127.0.0.1:${(http.address() as AddressInfo).port}` }));
}

async function main(): Promise<void> {
  const events = Number(process.argv[2] ?? 10_000);
  const rounds = Number(process.argv[3] ?? 5);
  const child = fork(fileURLToPath(import.meta.url), ["serve"]);
  const url = await new Promise<string>((resolve) => child.once("message", (m: { url: string }) => resolve(m.url)));
  const client = new Client({ name: "layouts", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${url}/mcp`)));
  const res = new Map<string, Array<{ perSec: number; us: number }>>();
  const turn = async (i: number, n: number): Promise<number> => {
    let got = 0;
    await client.callTool({ name: "bench", arguments: { message: `${i} ${n}` } }, undefined, { onprogress: () => void got++, timeout: 600_000 });
    return got;
  };
  // A third argument lists the layouts to run (their indexes, comma separated): one alone, to profile it.
  const picked = process.argv[4]?.split(",").map(Number) ?? LAYOUTS.map((_, i) => i);
  for (const i of picked) await turn(i, 2000);
  for (let r = 0; r < rounds; r++)
    for (let j = 0; j < picked.length; j++) {
      const i = picked[r % 2 ? picked.length - 1 - j : j]!;
      const cpu0 = process.cpuUsage();
      const t0 = performance.now();
      const got = await turn(i, events);
      const ms = performance.now() - t0;
      const cpu = process.cpuUsage(cpu0);
      if (got !== events) throw new Error(`${LAYOUTS[i]!.name}: ${got} notifications for ${events}`);
      res.set(LAYOUTS[i]!.name, [...(res.get(LAYOUTS[i]!.name) ?? []), { perSec: (events / ms) * 1000, us: (cpu.user + cpu.system) / events }]);
    }
  for (const [name, v] of res)
    console.log(
      `${name.padEnd(44)} ${median(v.map((x) => x.perSec))
        .toFixed(0)
        .padStart(7)} events/s  client ${median(v.map((x) => x.us))
        .toFixed(1)
        .padStart(5)} us/event`,
    );
  await client.close();
  child.kill();
}

if (process.argv[2] === "serve") serve();
else await main();
