/**
 * Faces: the same hub agent's turn of N events read through each client face of one router, side by side in
 * one run against the agent's own JSON-RPC stream (the baseline): events/s over a turn of N events, the
 * router's CPU an event, the bench process's (the face's client), the agent's, and the first-event latency
 * (request sent -> the agent's first event at the client) over turns of one event. The agent runs in a process
 * of its own (bench/faces-agent.ts; BENCH_FACES_AGENT=inline: in this one, its CPU then counted with the
 * client's), so no client's work delays its handling of a task. Twice: events that are
 * progress lines (every face writes one message each, an MCP tool call's progress notifications included) and
 * events that are the answer's deltas.
 *
 * A face is one entry of FACES (bench/face-clients.ts): how a client of that face runs one turn and hands
 * each message it reads to `seen`. Adding a face is adding an entry there.
 */
import { alternate, cpuMs, fmt, log, median, QUICK, startRouter, type Child, type Section } from "./lib.js";
import { FACES, type Face, type FaceClient, type TextKind } from "./face-clients.js";
import { AGENT_MODE, startFacesAgent, type FacesAgent } from "./faces-agent.js";

const EVENTS = Number(process.env.BENCH_FACE_EVENTS ?? (QUICK ? 5000 : 10_000));
const TURNS = Number(process.env.BENCH_FACE_TURNS ?? (QUICK ? 10 : 30));
/** BENCH_FACES=chat,rest: only the faces whose names contain one of these, in any case (and the baseline). */
const ONLY = process.env.BENCH_FACES?.toLowerCase().split(",").filter(Boolean);
/** BENCH_FACE_KINDS=delta: only these kinds of events. */
const KINDS = (process.env.BENCH_FACE_KINDS?.split(",") ?? ["progress", "delta"]) as TextKind[];
/** The first event's text: unique, so a client finds it in whatever frame its face wraps it in. */
const FIRST = "ev1.";

interface TurnResult {
  /** ms from the request to the first event at the client */
  first: number;
  /** ms from the request to the end of the stream */
  total: number;
  messages: number;
}

async function timedTurn(client: FaceClient, n: number): Promise<TurnResult> {
  let first = Number.NaN;
  let messages = 0;
  const t0 = performance.now();
  await client.turn(String(n), (data) => {
    messages++;
    if (Number.isNaN(first) && data.includes(FIRST)) first = performance.now() - t0;
  });
  const total = performance.now() - t0;
  if (Number.isNaN(first)) throw new Error(`the first event never reached the client (${messages} messages)`);
  return { first, total, messages };
}

interface FaceRound {
  eventsPerSec: number;
  cpuUsPerEvent: number;
  /** The bench process's CPU an event: the face's client (and the agent that pumps the events, inline). */
  clientUsPerEvent: number;
  /** The agent's process's CPU an event (NaN inline: it is in clientUsPerEvent). */
  agentUsPerEvent: number;
  firstMs: number;
}

async function measureFace(router: Child, agent: FacesAgent, client: FaceClient, face: Face): Promise<FaceRound> {
  const cpu0 = cpuMs(router.pid);
  const agent0 = agent.pid ? cpuMs(agent.pid) : Number.NaN;
  const own0 = process.cpuUsage();
  const big = await timedTurn(client, EVENTS);
  const cpu = cpuMs(router.pid) - cpu0;
  const agentCpu = agent.pid ? cpuMs(agent.pid) - agent0 : Number.NaN;
  const own = process.cpuUsage(own0);
  // Fewer messages than events: the face dropped or merged some, and its events/s would not be comparable.
  if (big.messages < EVENTS) throw new Error(`${face.name}: ${big.messages} messages for ${EVENTS} events`);
  const firsts: number[] = [];
  for (let i = 0; i < TURNS; i++) firsts.push((await timedTurn(client, 1)).first);
  // BENCH_VERBOSE=1: each round's figures (the table has the medians), to tell a slow round from a slow face.
  if (process.env.BENCH_VERBOSE) log(`    ${face.name}: ${fmt((EVENTS / big.total) * 1000)} events/s, first ${fmt(median(firsts), 2)} ms`);
  return {
    eventsPerSec: (EVENTS / big.total) * 1000,
    cpuUsPerEvent: (cpu * 1000) / EVENTS,
    clientUsPerEvent: (own.user + own.system) / EVENTS,
    agentUsPerEvent: (agentCpu * 1000) / EVENTS,
    firstMs: median(firsts),
  };
}

async function measureKind(router: Child, agent: FacesAgent, kind: TextKind, clients: Map<string, FaceClient>): Promise<string[]> {
  await agent.use(kind);
  const faces = FACES.filter(
    (f, i) => (f.kinds ?? ["progress", "delta"]).includes(kind) && (i === 0 || !ONLY || ONLY.some((o) => f.name.toLowerCase().includes(o))),
  );
  const byName = new Map(faces.map((f) => [f.name, f]));
  // A full turn and a few one-event turns a face before any is measured: with 500 events the first face measured (the
  // JSON-RPC baseline) still ran its first round on code V8 had not optimised, at a third of its later rate, which
  // flattered every ratio (docs/benchmarks.md, fifteenth pass, the faces' agent in its own process).
  for (const f of faces) {
    await timedTurn(clients.get(f.name)!, EVENTS);
    for (let i = 0; i < 5; i++) await timedTurn(clients.get(f.name)!, 1);
  }
  const res = await alternate(
    faces.map((f) => f.name),
    (name) => measureFace(router, agent, clients.get(name)!, byName.get(name)!),
  );
  const pick = (name: string, k: keyof FaceRound) => median(res.get(name)!.map((r) => r[k]));
  const base = faces[0]!.name;
  const lines = [
    `${kind} events:`,
    `  ${"face".padEnd(22)} ${"events/s".padStart(9)} ${"ratio".padStart(6)} ${"us/event".padStart(9)} ${"client us".padStart(9)} ${"agent us".padStart(8)} ${"first ms".padStart(9)} ${"added".padStart(8)}`,
  ];
  for (const f of faces) {
    const ratio = pick(f.name, "eventsPerSec") / pick(base, "eventsPerSec");
    const added = pick(f.name, "firstMs") - pick(base, "firstMs");
    lines.push(
      `  ${f.name.padEnd(22)} ${fmt(pick(f.name, "eventsPerSec")).padStart(9)} ${`${fmt(ratio, 2)}x`.padStart(6)} ${fmt(pick(f.name, "cpuUsPerEvent"), 1).padStart(9)} ${fmt(pick(f.name, "clientUsPerEvent"), 1).padStart(9)} ${(agent.pid ? fmt(pick(f.name, "agentUsPerEvent"), 1) : "-").padStart(8)} ${fmt(pick(f.name, "firstMs"), 2).padStart(9)} ${`${added >= 0 ? "+" : ""}${fmt(added, 2)}`.padStart(8)}`,
    );
  }
  for (const l of lines) log("  " + l);
  return lines;
}

export async function faces(): Promise<Section> {
  let env: NodeJS.ProcessEnv = {};
  for (const f of FACES) env = { ...env, ...(await f.routerEnv?.()) };
  const router = await startRouter({ env });
  const agent = await startFacesAgent(router.url);
  const clients = new Map<string, FaceClient>();
  try {
    for (const f of FACES) clients.set(f.name, await f.open(router, env));
    const lines: string[] = [];
    for (const kind of KINDS) lines.push(...(await measureKind(router, agent, kind, clients)));
    return {
      title: `Faces (one hub agent ${AGENT_MODE === "inline" ? "on the clients' event loop" : "in its own process"}, SQLite; ${fmt(EVENTS)} events a turn for events/s, first event over ${TURNS} turns of one; target >= 0.9x the JSON-RPC stream, first event within +1 ms)`,
      lines,
    };
  } finally {
    for (const c of clients.values()) await c.close?.();
    await agent.close();
    await router.stop();
  }
}
