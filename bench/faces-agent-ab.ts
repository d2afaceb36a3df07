/**
 * The faces' agent in its own process or on the clients' event loop, paired under the same load (a diagnostic,
 * not a scenario; docs/benchmarks.md, fifteenth pass, "the faces' agent in its own process"): one router, the
 * agent twice, `inline` in this process and `apart` in a child (bench/faces-agent.ts), and one-event turns
 * alternating between them host by host (the JSON-RPC stream, then the MCP SDK's Client), so each pair of turns
 * sees the same machine. Prints each host's median first event per arrangement and the median of each turn's
 * MCP first event minus the JSON-RPC turn's just before it (the bench's "added"), and of apart minus inline.
 * PROBE_BIG=n: a turn of n events on each host before every 30 turns of one, as the bench does.
 * Run: node dist/bench/faces-agent-ab.js (BENCH_FACE_TURNS turns a host and arrangement, 300 by default).
 */
import { randomUUID } from "node:crypto";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { startFacesAgent } from "./faces-agent.js";
import { median, sseRequest, startRouter } from "./lib.js";

const TURNS = Number(process.env.BENCH_FACE_TURNS ?? 300);
const BIG = Number(process.env.PROBE_BIG ?? 0);
const FIRST = "ev1.";

type Host = (text: string) => Promise<number>;

/** A host's turn: resolves with ms from the request to the first event's text at the client. */
function jsonRpc(url: string, agent: string): Host {
  return async (text) => {
    const t0 = performance.now();
    let first = Number.NaN;
    const body = {
      jsonrpc: "2.0",
      id: 1,
      method: "message/stream",
      params: { message: { kind: "message", messageId: randomUUID(), role: "user", parts: [{ kind: "text", text }] } },
    };
    await sseRequest(`${url}/agents/${agent}`, body, (d) => void (Number.isNaN(first) && d.includes(FIRST) && (first = performance.now() - t0))).done;
    return first;
  };
}

async function mcp(url: string, agent: string): Promise<{ host: Host; close(): Promise<void> }> {
  const client = new Client({ name: "ab", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${url}/mcp`)));
  return {
    host: async (text) => {
      const t0 = performance.now();
      let first = Number.NaN;
      await client.callTool({ name: agent, arguments: { message: text } }, undefined, {
        onprogress: (p) => void (Number.isNaN(first) && p.message === FIRST && (first = performance.now() - t0)),
        timeout: 600_000,
      });
      return first;
    },
    close: () => client.close(),
  };
}

const router = await startRouter();
const arrangements = [
  { label: "inline", agent: await startFacesAgent(router.url, "inline", "bench") },
  { label: "apart", agent: await startFacesAgent(router.url, "process", "benchp") },
];
const names = ["bench", "benchp"];
const setups = await Promise.all(names.map(async (n) => ({ rpc: jsonRpc(router.url, n), mcp: await mcp(router.url, n) })));
const rows = new Map<string, number[]>();
const add = (k: string, v: number): void => void rows.set(k, [...(rows.get(k) ?? []), v]);
const both = async (s: (typeof setups)[number], text: string): Promise<void> => {
  await s.rpc(text);
  await s.mcp.host(text);
};
try {
  for (const s of setups) for (let i = 0; i < 20; i++) await both(s, "1"); // warm-up
  for (let i = 0; i < TURNS; i++) {
    if (BIG && i % 30 === 0) for (const s of setups) await both(s, String(BIG));
    const order = i % 2 ? [1, 0] : [0, 1];
    const added: number[] = [];
    for (const j of order) {
      const label = arrangements[j]!.label;
      const rpc = await setups[j]!.rpc("1");
      const sdk = await setups[j]!.mcp.host("1");
      add(`${label} JSON-RPC first`, rpc);
      add(`${label} MCP SDK first`, sdk);
      add(`${label} MCP added`, sdk - rpc);
      added[j] = sdk - rpc;
    }
    add("apart minus inline, MCP added", added[1]! - added[0]!);
  }
  for (const [k, v] of rows) console.log(`${k.padEnd(32)} ${median(v).toFixed(3)} ms`);
} finally {
  for (const s of setups) await s.mcp.close();
  for (const a of arrangements) await a.agent.close();
  await router.stop();
}
