/**
 * Where a one-event MCP tool call's time goes (docs/benchmarks.md, fifteenth pass). A diagnostic, not a
 * scenario of the bench. Modes (environment):
 * - default: turns of one event host after host, as the bench runs them (each turn right after the one
 *   before): the JSON-RPC stream, the SDK's Client against the router (also with a fetch that stamps the
 *   request, the headers, every body chunk and the body's end), the raw SSE host, and the SDK client and the
 *   raw host against a minimal SDK server (bench/mcp-minimal.ts; also one whose tool pauses 1 ms). Medians,
 *   ms from the call; `exec` is the agent's task.execute (PROBE_AGENT_PROCESS=1: the agent in a process of
 *   its own, off the hosts' event loop, without that stamp). PROBE_MARKS=file adds the marks a router
 *   instrumented by hand appended to `file` (`<epoch ms> <name>` lines, matched to turns by time).
 *   PROBE_HOSTS="a|b" runs those hosts only.
 * - PROBE_CPU=n: n turns a host; the server's and this process's CPU a turn.
 * - PROBE_AB="base=/work/wt-base/dist,new=dist": a router of each build, turns alternating between them host
 *   by host, the first event as the median of each turn minus the JSON-RPC turn just before it (same load);
 *   PROBE_MINIMAL=1 adds the minimal server; PROBE_BIG=10000 puts a turn of that many events before every
 *   30 turns of one, as the bench does.
 * Run: node dist/bench/mcp-probe.js (BENCH_ROUTER_DIST and BENCH_ROUTER_NODE_ARGS as in the bench).
 */
import { fork } from "node:child_process";
import { randomUUID } from "node:crypto";
import { existsSync, readFileSync, rmSync } from "node:fs";
import { join, dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { rawMcpSession } from "./face-clients.js";
import { BenchAgent, cpuMs, median, sseRequest, startChild, startRouter, type Child } from "./lib.js";

const TURNS = Number(process.env.BENCH_FACE_TURNS ?? 40);
/** PROBE_BIG=10000: with PROBE_AB, each host's turns of one follow a turn of this many events, as in the bench. */
const BIG = Number(process.env.PROBE_BIG ?? 0);
/** PROBE_GAP_MS: a pause before each measured turn (the previous turn's tail then no longer overlaps it). */
const GAP_MS = Number(process.env.PROBE_GAP_MS ?? 0);
/** The message of the next turn: the number of events the agent sends. */
let message = "1";

/** The agent's turn of `n` progress events, as bench/faces.ts pumps them. */
async function pump(agent: BenchAgent, taskId: string, n: number): Promise<void> {
  const socket = agent.socket;
  for (let i = 1; i <= n; i++) {
    if (i % 256 === 1) socket.cork();
    if (i === 1) stamp("exec");
    agent.status(taskId, `ev${i}.`, "progress");
    if (i % 256 === 0) {
      socket.uncork();
      await agent.writable();
    }
  }
  socket.uncork();
  agent.ws.send(`{"jsonrpc":"2.0","method":"task.complete","params":{"task_id":"${taskId}","status":{"state":"completed"},"final":true}}`);
}
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const HERE = dirname(fileURLToPath(import.meta.url));

type Stamps = Map<string, number>;
let stamps: Stamps = new Map();
let t0 = 0;
const stamp = (name: string): void => {
  if (process.env.PROBE_CPU || message !== "1") return;
  let key = name;
  for (let i = 2; stamps.has(key); i++) key = `${name}#${i}`;
  stamps.set(key, performance.now() - t0);
};

/** A fetch that stamps the request, its headers and each chunk of its body (named by what the chunk holds). */
const stampingFetch = async (url: string | URL, init?: RequestInit): Promise<Response> => {
  const what = typeof init?.body === "string" ? ((JSON.parse(init.body) as { method?: string }).method ?? "reply") : (init?.method ?? "GET");
  stamp(`fetch ${what}`);
  const res = await fetch(url, init);
  stamp(`headers ${what}`);
  if (!res.body) return res;
  const dec = new TextDecoder();
  const body = res.body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, c) {
        const text = dec.decode(chunk);
        const kinds = [...text.matchAll(/data: ?(\{"[a-z]+":"?[^",]*)|(^|\n)id: [^\n]*\ndata: ?\n|: ?keep/g)].map((m) =>
          m[1] ? (m[1].includes("progress") ? "progress" : m[1].includes("result") ? "result" : m[1].slice(2, 20)) : "priming",
        );
        stamp(`chunk ${what} [${kinds.join(",") || text.slice(0, 20)}]`);
        c.enqueue(chunk);
      },
      flush() {
        stamp(`body end ${what}`);
      },
    }),
  );
  return new Response(body, { status: res.status, statusText: res.statusText, headers: res.headers });
};

interface Host {
  turn(): Promise<void>;
  close(): Promise<void>;
}

async function sdkHost(url: string, stamped: boolean): Promise<Host> {
  const client = new Client({ name: "probe", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${url}/mcp`), stamped ? { fetch: stampingFetch } : {}));
  return {
    async turn() {
      await client.callTool({ name: "bench", arguments: { message } }, undefined, {
        onprogress: (p) => void (p.message === "ev1." && stamp("progress seen")),
        timeout: 60_000,
      });
      stamp("result seen");
    },
    close: () => client.close(),
  };
}

function sseHost(url: string, body: () => object, headers: Record<string, string> = {}): Host {
  return {
    async turn() {
      const s = sseRequest(url, body(), (data) => stamp(data.includes("ev1.") ? "progress seen" : "event seen"), headers);
      void s.opened.then(() => stamp("headers"));
      await s.done;
      stamp("end");
    },
    close: async () => undefined,
  };
}

async function rawMcpHost(url: string): Promise<Host> {
  const headers = await rawMcpSession(`${url}/mcp`, "raw");
  let id = 0;
  return sseHost(
    `${url}/mcp`,
    () => ({ jsonrpc: "2.0", id: ++id, method: "tools/call", params: { name: "bench", arguments: { message }, _meta: { progressToken: id } } }),
    headers,
  );
}

async function measure(name: string, host: Host): Promise<void> {
  for (let i = 0; i < 5; i++) {
    stamps = new Map();
    t0 = performance.now();
    await host.turn();
  }
  for (let i = 0; i < TURNS; i++) {
    stamps = new Map();
    if (GAP_MS) await new Promise((r) => setTimeout(r, GAP_MS));
    t0 = performance.now();
    await host.turn();
    turns.push({ name, t0: performance.timeOrigin + t0, t1: performance.timeOrigin + performance.now(), stamps });
  }
}

/** Turns as measured, matched afterwards with the marks a router instrumented by hand wrote (PROBE_MARKS=file). */
const turns: Array<{ name: string; t0: number; t1: number; stamps: Stamps }> = [];
const MARKS = process.env.PROBE_MARKS;

function collect(results: Map<string, Map<string, number[]>>): void {
  const marks =
    MARKS && existsSync(MARKS)
      ? readFileSync(MARKS, "utf8")
          .split("\n")
          .filter(Boolean)
          .map((l) => [Number(l.slice(0, l.indexOf(" "))), l.slice(l.indexOf(" ") + 1)] as const)
      : [];
  for (const turn of turns) {
    const byStamp = results.get(turn.name) ?? new Map<string, number[]>();
    results.set(turn.name, byStamp);
    const seen = new Map<string, number>();
    for (const [at, what] of marks) {
      if (at < turn.t0 || at > turn.t1) continue;
      const n = (seen.get(what) ?? 0) + 1;
      seen.set(what, n);
      turn.stamps.set(`router: ${what}${n > 1 ? `#${n}` : ""}`, at - turn.t0);
    }
    for (const [k, v] of turn.stamps) byStamp.set(k, [...(byStamp.get(k) ?? []), v]);
  }
}

/**
 * PROBE_AB="base=/work/wt-base/dist,new=dist": a router of each build, turns of one event alternating between
 * them host by host (JSON-RPC, the SDK client, the raw host), so both see the same load; the first event's
 * median per router and host, and the median of each turn's MCP first event minus the JSON-RPC turn's before it.
 */
async function ab(spec: string): Promise<void> {
  const setups: Array<{ label: string; router: Child; agent: BenchAgent | undefined; hosts: Array<[string, Host]> }> = [];
  for (const part of spec.split(",")) {
    const [label, dist] = part.split("=") as [string, string];
    const router = await startRouter({ dist });
    const agent = await BenchAgent.connect(router.url, "bench");
    agent.onExecute = (taskId, text) => void pump(agent, taskId, Number(text) || 1);
    const hosts: Array<[string, Host]> = [
      ["JSON-RPC", jsonRpcHost(router.url)],
      ["raw host", await rawMcpHost(router.url)],
      ["SDK client", await sdkHost(router.url, false)],
    ];
    setups.push({ label, router, agent, hosts });
  }
  if (process.env.PROBE_MINIMAL) {
    // The SDK's own server (bench/mcp-minimal.ts): what the SDK client costs over the raw host without the router.
    const minimal = await startChild(join(HERE, "mcp-minimal.js"), []);
    const hosts: Array<[string, Host]> = [
      ["raw host", await rawMcpHost(minimal.url)],
      ["SDK client", await sdkHost(minimal.url, false)],
    ];
    setups.push({ label: "minimal", router: minimal, agent: undefined, hosts });
  }
  const firsts = new Map<string, number[]>();
  const added = new Map<string, number[]>();
  /** A turn of the SDK client minus the raw host's turn before it, on the same server. */
  const overRaw = new Map<string, number[]>();
  const turn = async (host: Host): Promise<number> => {
    stamps = new Map();
    t0 = performance.now();
    await host.turn();
    return stamps.get("progress seen") ?? Number.NaN;
  };
  try {
    for (const s of setups) for (const [, h] of s.hosts) for (let i = 0; i < 20; i++) await turn(h);
    if (BIG) {
      // As the bench does: a turn of BIG events, then 30 of one, host by host.
      for (let r = 0; r < TURNS / 30; r++)
        for (const s of r % 2 ? [...setups].reverse() : setups)
          for (const [name, h] of s.hosts) {
            message = String(BIG);
            await h.turn();
            message = "1";
            const key = `${s.label} ${name}`;
            for (let i = 0; i < 30; i++) firsts.set(key, [...(firsts.get(key) ?? []), await turn(h)]);
          }
    }
    for (let i = 0; i < (BIG ? 0 : TURNS); i++)
      for (const s of i % 2 ? [...setups].reverse() : setups) {
        let base = Number.NaN;
        let raw = Number.NaN;
        for (const [name, h] of s.hosts) {
          const first = await turn(h);
          const key = `${s.label} ${name}`;
          firsts.set(key, [...(firsts.get(key) ?? []), first]);
          if (name === "JSON-RPC") base = first;
          else if (!Number.isNaN(base)) added.set(key, [...(added.get(key) ?? []), first - base]);
          if (name === "raw host") raw = first;
          else if (name === "SDK client" && !Number.isNaN(raw)) overRaw.set(s.label, [...(overRaw.get(s.label) ?? []), first - raw]);
        }
      }
    for (const [key, v] of firsts) {
      const base = firsts.get(key.replace(/ .*/, " JSON-RPC"));
      const plus = added.get(key) ?? (key.endsWith("JSON-RPC") || !base ? undefined : [median(v) - median(base)]);
      console.log(`${key.padEnd(24)} first ${median(v).toFixed(3)} ms${plus ? `  added ${median(plus) >= 0 ? "+" : ""}${median(plus).toFixed(3)} ms` : ""}`);
    }
    for (const [label, v] of overRaw)
      console.log(`${label}: the SDK client's first event minus the raw host's: ${median(v) >= 0 ? "+" : ""}${median(v).toFixed(3)} ms`);
  } finally {
    for (const s of setups) {
      for (const [, h] of s.hosts) await h.close();
      s.agent?.close();
      await s.router.stop();
    }
  }
}

function jsonRpcHost(url: string): Host {
  return sseHost(`${url}/agents/bench`, () => ({
    jsonrpc: "2.0",
    id: 1,
    method: "message/stream",
    params: { message: { kind: "message", messageId: randomUUID(), role: "user", parts: [{ kind: "text", text: message }] } },
  }));
}

async function main(): Promise<void> {
  if (process.env.PROBE_AB) return ab(process.env.PROBE_AB);
  if (MARKS) rmSync(MARKS, { force: true });
  const router = await startRouter();
  const minimal: Child = await startChild(join(HERE, "mcp-minimal.js"), []);
  // The same, its answer in pieces over time as the router's (headers at once, then the progress, then the result).
  const paused: Child = await startChild(join(HERE, "mcp-minimal.js"), [], { MINIMAL_PAUSE_MS: "1" });
  // PROBE_AGENT_PROCESS=1: the agent in a process of its own (no `exec` stamp), not on this event loop.
  const agent = process.env.PROBE_AGENT_PROCESS ? await agentProcess(router.url) : await BenchAgent.connect(router.url, "bench");
  if (agent instanceof BenchAgent) agent.onExecute = (taskId) => void pump(agent, taskId, 1);
  const hosts: Array<[string, Host]> = [
    [
      "JSON-RPC",
      sseHost(`${router.url}/agents/bench`, () => ({
        jsonrpc: "2.0",
        id: 1,
        method: "message/stream",
        params: { message: { kind: "message", messageId: randomUUID(), role: "user", parts: [{ kind: "text", text: "1" }] } },
      })),
    ],
    ["router, SDK client", await sdkHost(router.url, false)],
    ["router, SDK client, stamped", await sdkHost(router.url, true)],
    ["router, raw host", await rawMcpHost(router.url)],
    ["minimal SDK server, SDK client", await sdkHost(minimal.url, false)],
    ["minimal SDK server, SDK client, stamped", await sdkHost(minimal.url, true)],
    ["minimal SDK server, raw host", await rawMcpHost(minimal.url)],
    ["minimal SDK server paused 1 ms, SDK client", await sdkHost(paused.url, false)],
    ["minimal SDK server paused 1 ms, SDK client, stamped", await sdkHost(paused.url, true)],
    ["minimal SDK server paused 1 ms, raw host", await rawMcpHost(paused.url)],
  ];
  const only = process.env.PROBE_HOSTS?.split("|");
  if (only) hosts.splice(0, hosts.length, ...hosts.filter(([name]) => only.some((o) => name === o)));
  const results = new Map<string, Map<string, number[]>>();
  try {
    if (process.env.PROBE_CPU) {
      // CPU a one-event turn: the router's (or the minimal server's) and this process's (the host and the agent).
      const n = Number(process.env.PROBE_CPU);
      const cpu = new Map<string, Array<[number, number, number]>>();
      for (let r = 0; r < ROUNDS; r++)
        for (const [name, host] of r % 2 ? [...hosts].reverse() : hosts) {
          const server = name.includes("paused") ? paused : name.startsWith("minimal") ? minimal : router;
          for (let i = 0; i < 20; i++) await host.turn();
          const c0 = cpuMs(server.pid);
          const o0 = process.cpuUsage();
          const w0 = performance.now();
          for (let i = 0; i < n; i++) await host.turn();
          const o = process.cpuUsage(o0);
          cpu.set(name, [...(cpu.get(name) ?? []), [((cpuMs(server.pid) - c0) * 1000) / n, (o.user + o.system) / n, ((performance.now() - w0) * 1000) / n]]);
        }
      for (const [name, v] of cpu)
        console.log(
          `${name.padEnd(42)} server ${median(v.map((x) => x[0]))
            .toFixed(0)
            .padStart(5)} us/turn  host+agent ${median(v.map((x) => x[1]))
            .toFixed(0)
            .padStart(5)} us/turn  wall ${median(v.map((x) => x[2]))
            .toFixed(0)
            .padStart(5)} us/turn`,
        );
      return;
    }
    for (let r = 0; r < ROUNDS; r++) for (const [name, host] of r % 2 ? [...hosts].reverse() : hosts) await measure(name, host);
    await new Promise((r) => setTimeout(r, 500));
    collect(results);
    for (const [name] of hosts) {
      console.log(`${name}:`);
      const rows = [...results.get(name)!].map(([k, v]) => [k, median(v), v.length] as const).sort((a, b) => a[1] - b[1]);
      for (const [k, m, n] of rows) console.log(`  ${m.toFixed(3).padStart(7)} ms  ${k}${n < TURNS * ROUNDS ? ` (${n} turns)` : ""}`);
    }
  } finally {
    for (const [, h] of hosts) await h.close();
    agent.close();
    await router.stop();
    await minimal.stop();
    await paused.stop();
  }
}

/** The bench agent in a child process (this script with `agent <url>`), ready once registered. */
async function agentProcess(url: string): Promise<{ close(): void }> {
  const child = fork(fileURLToPath(import.meta.url), ["agent", url]);
  await new Promise((resolve) => child.once("message", resolve));
  return { close: () => void child.kill() };
}

if (process.argv[2] === "agent") {
  const agent = await BenchAgent.connect(process.argv[3]!, "bench");
  agent.onExecute = (taskId, text) => void pump(agent, taskId, Number(text) || 1);
  process.send!("ready");
} else await main();
