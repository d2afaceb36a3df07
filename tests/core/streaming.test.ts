import { connect } from "node:net";
import { afterAll, beforeAll, describe, expect, test } from "@jest/globals";
import type { RunningRouter } from "../../router/index.js";
import { counterAgent, gatedAgent } from "../helpers/agents.js";
import { openStream, rpc, statusText, userMessage, type SseEvent } from "../helpers/rpc.js";
import { testRouter } from "../helpers/router.js";
import { heartbeatEvery } from "../../router/sse/heartbeat.js";

const gated = gatedAgent("gated");
const gated2 = gatedAgent("gated2");
const gated3 = gatedAgent("gated3");
let router: RunningRouter;

beforeAll(async () => {
  router = await testRouter({
    hostedAgents: [counterAgent("count1000", 1000), counterAgent("count5000", 5000), gated.agent, gated2.agent, gated3.agent],
    config: { heartbeatMs: 50 },
    tuning: { subscriberCapacity: 16, logPageSize: 100 },
  });
});
afterAll(() => router.close());

/** Resolves once `done()` holds, checking after each turn of the event loop. */
async function until(done: () => boolean): Promise<void> {
  while (!done()) await new Promise((r) => setImmediate(r));
}

/**
 * POSTs `body` over a raw socket and reads the whole chunked response: the number of HTTP chunks and the
 * decoded body (the SSE client helpers hide the chunking).
 */
async function rawChunkedPost(url: string, body: object, headers: Record<string, string>): Promise<{ chunks: number; body: string }> {
  const { hostname, port } = new URL(url);
  const payload = JSON.stringify(body);
  const socket = connect(Number(port), hostname);
  const head = [
    `POST /rpc HTTP/1.1`,
    `Host: ${hostname}:${port}`,
    "Content-Type: application/json",
    `Content-Length: ${Buffer.byteLength(payload)}`,
    "Connection: close",
    ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`),
  ];
  // Not end(): a client that half-closes its socket has gone away, as far as the stream is concerned.
  socket.write(head.join("\r\n") + "\r\n\r\n" + payload);
  // Read up to the last chunk: the stream's response keeps the connection alive after it.
  let raw = Buffer.alloc(0);
  for await (const chunk of socket) {
    raw = Buffer.concat([raw, chunk as Buffer]);
    if (raw.subarray(-7).toString() === "\r\n0\r\n\r\n") break;
  }
  socket.destroy();
  let at = raw.indexOf("\r\n\r\n") + 4;
  expect(raw.subarray(0, at).toString()).toMatch(/transfer-encoding: chunked/i);
  const out: Buffer[] = [];
  let chunks = 0;
  for (;;) {
    const eol = raw.indexOf("\r\n", at);
    const size = parseInt(raw.subarray(at, eol).toString(), 16);
    if (!(size > 0)) {
      expect(raw.subarray(at, eol).toString()).toBe("0");
      break;
    }
    out.push(raw.subarray(eol + 2, eol + 2 + size));
    chunks++;
    at = eol + 2 + size + 2;
  }
  return { chunks, body: Buffer.concat(out).toString() };
}

const seqs = (events: SseEvent[]) => events.map((e) => Number(e.id));
const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);

describe("the uniform SSE stream", () => {
  test("headers are sent at once and events carry id 1..n, the last final", async () => {
    const s = await openStream(router.url, "tasks/sendSubscribe", { id: "echo-1", message: userMessage("hello"), metadata: { agent: "echo" } });
    expect(s.response.status).toBe(200);
    expect(s.response.headers.get("content-type")).toContain("text/event-stream");
    expect(s.response.headers.get("cache-control")).toBe("no-cache");
    expect(s.response.headers.get("x-accel-buffering")).toBe("no");
    const events = await s.all();
    expect(seqs(events)).toEqual([1, 2]);
    expect(events.every((e) => e.data.id === "s" && e.data.jsonrpc === "2.0")).toBe(true);
    expect(events[0]!.data.result).toMatchObject({ id: "echo-1", status: { state: "working" }, final: false });
    expect(events[1]!.data.result).toMatchObject({ id: "echo-1", status: { state: "completed" }, final: true });
    expect(statusText(events[1]!)).toBe("hello");
  });

  test("a stream of 1,000 events arrives complete and in order", async () => {
    const s = await openStream(router.url, "tasks/sendSubscribe", { id: "big-1", message: userMessage("go"), metadata: { agent: "count1000" } });
    const events = await s.all();
    expect(seqs(events)).toEqual(range(1, 1001));
    const chunks = events.slice(0, 1000).map((e) => e.data.result.artifact.parts[0].text);
    expect(chunks).toEqual(range(1, 1000).map((i) => `${i},`));
    expect(events[1000]!.data.result.final).toBe(true);
    const task = await rpc(router.url, "tasks/get", { id: "big-1" });
    expect(task.result.artifacts[0].parts[0].text).toBe(
      range(1, 1000)
        .map((i) => `${i},`)
        .join(""),
    );
  });

  test("a client dropped at a random point resumes with Last-Event-ID: no gap, no duplicate", async () => {
    const s = await openStream(router.url, "tasks/sendSubscribe", { id: "drop-1", message: userMessage("go"), metadata: { agent: "count1000" } });
    const cut = 1 + Math.floor(Math.random() * 999);
    const before: SseEvent[] = [];
    while (before.length < cut) before.push((await s.next())!);
    s.abort();
    const lastId = before[before.length - 1]!.id!;
    const resumed = await openStream(router.url, "tasks/resubscribe", { id: "drop-1" }, { headers: { "last-event-id": lastId } });
    const after = await resumed.all();
    expect([...seqs(before), ...seqs(after)]).toEqual(range(1, 1001));
    expect(after[after.length - 1]!.data.result.final).toBe(true);
  });

  test("several streams on one task all get every event in the same order", async () => {
    const first = await openStream(router.url, "tasks/sendSubscribe", { id: "multi-1", message: userMessage("go"), metadata: { agent: "gated" } });
    await gated.running;
    const second = await openStream(router.url, "tasks/resubscribe", { id: "multi-1" }, { headers: { "last-event-id": "0" } });
    const third = await openStream(router.url, "tasks/resubscribe", { id: "multi-1" }, { headers: { "last-event-id": "0" } });
    gated.release();
    const [a, b, c] = await Promise.all([first.all(), second.all(), third.all()]);
    expect(seqs(a)).toEqual([1, 2, 3]);
    expect(b.map((e) => e.data.result)).toEqual(a.map((e) => e.data.result));
    expect(seqs(c)).toEqual([1, 2, 3]);
  });

  test("a backlog leaves in few HTTP chunks: a batch's frames are written together, complete and in order", async () => {
    const s = await openStream(router.url, "tasks/sendSubscribe", { id: "chunks-1", message: userMessage("go"), metadata: { agent: "count1000" } });
    await s.all();
    const { chunks, body } = await rawChunkedPost(
      router.url,
      { jsonrpc: "2.0", id: 1, method: "tasks/resubscribe", params: { id: "chunks-1" } },
      { "last-event-id": "0" },
    );
    const ids = [...body.matchAll(/^id: (\d+)$/gm)].map((m) => Number(m[1]));
    expect(ids).toEqual(range(1, 1001));
    // Written one frame per write, the 1,001 events were 1,001 chunks; the log is read in pages of 100.
    expect(chunks).toBeGreaterThanOrEqual(10);
    expect(chunks).toBeLessThan(100);
  });

  test("resubscribe without Last-Event-ID: current status, artifacts so far, then live events", async () => {
    const first = await openStream(router.url, "tasks/sendSubscribe", { id: "resub-1", message: userMessage("go"), metadata: { agent: "gated2" } });
    await gated2.running;
    const again = await openStream(router.url, "task/resubscribe", { id: "resub-1" });
    const snapshot = (await again.next())!;
    expect(snapshot.id).toBeUndefined();
    expect(snapshot.data.result).toMatchObject({ id: "resub-1", status: { state: "working" }, final: false });
    gated2.release();
    const live = await again.all();
    expect(seqs(live)).toEqual([2, 3]);
    expect(live[1]!.data.result.final).toBe(true);
    await first.all();
  });

  test("resubscribe to a finished task sends its artifacts, then its final status, and closes", async () => {
    await rpc(router.url, "tasks/send", { id: "fin-1", message: userMessage("go"), metadata: { agent: "count1000" } });
    const s = await openStream(router.url, "tasks/resubscribe", { id: "fin-1" });
    const events = await s.all();
    expect(events.map((e) => e.id)).toEqual([undefined, undefined]);
    expect(events[0]!.data.result.artifact.parts[0].text).toMatch(/^1,2,3,/);
    expect(events[1]!.data.result).toMatchObject({ status: { state: "completed" }, final: true });
  });

  test("Last-Event-ID on a finished task gives exactly the events after it, ending with the final one", async () => {
    await rpc(router.url, "tasks/send", { id: "fin-2", message: userMessage("go"), metadata: { agent: "count1000" } });
    const s = await openStream(router.url, "tasks/resubscribe", { id: "fin-2" }, { headers: { "last-event-id": "995" } });
    expect(seqs(await s.all())).toEqual(range(996, 1001));
  });

  test("a malformed Last-Event-ID is -32602 naming the header", async () => {
    await rpc(router.url, "tasks/send", { id: "fin-3", message: userMessage("go"), metadata: { agent: "echo" } });
    const [r] = await (await openStream(router.url, "tasks/resubscribe", { id: "fin-3" }, { headers: { "last-event-id": "abc" } })).all();
    expect(r!.data.error.data.field).toBe("Last-Event-ID");
  });

  test("a client that goes away cancels nothing: the task completes and its log is whole", async () => {
    const s = await openStream(router.url, "tasks/sendSubscribe", { id: "gone-1", message: userMessage("go"), metadata: { agent: "gated3" } });
    await s.next();
    s.abort();
    await gated3.running;
    gated3.release();
    const replay = await openStream(router.url, "tasks/resubscribe", { id: "gone-1" }, { headers: { "last-event-id": "0" } });
    const events = await replay.all();
    expect(seqs(events)).toEqual([1, 2, 3]);
    expect(events[2]!.data.result.status.state).toBe("completed");
  });

  test("idle streams get : ping heartbeats", async () => {
    const g = gatedAgent("gated-ping");
    router.agents.set(g.agent);
    const s = await openStream(router.url, "tasks/sendSubscribe", { id: "ping-1", message: userMessage("go"), metadata: { agent: "gated-ping" } });
    await s.next();
    await s.nextComment();
    expect(s.comments[0]).toBe("ping");
    g.release();
    expect(seqs(await s.all())).toEqual([2, 3]);
  });

  test("a client that goes away leaves nothing of its stream: no subscriber, no heartbeat", async () => {
    const g = gatedAgent("gated-leave");
    router.agents.set(g.agent);
    const beating = heartbeatEvery(router.config.heartbeatMs);
    const [streamsBefore, beatingBefore] = [router.engine.stats().streams, beating.size];
    const s = await openStream(router.url, "tasks/sendSubscribe", { id: "leave-1", message: userMessage("go"), metadata: { agent: "gated-leave" } });
    await s.next();
    const r = await openStream(router.url, "tasks/resubscribe", { id: "leave-1" });
    await r.next();
    await until(() => router.engine.stats().streams === streamsBefore + 2);
    expect(beating.size).toBe(beatingBefore + 2);
    s.abort();
    r.abort();
    await until(() => router.engine.stats().streams === streamsBefore && beating.size === beatingBefore);
    g.release();
  });

  test("a slow reader misses nothing while the agent runs at full speed, and memory stays bounded", async () => {
    const s = await openStream(router.url, "tasks/sendSubscribe", { id: "slow-1", message: userMessage("go"), metadata: { agent: "count5000" } });
    // Not reading: the task must still finish, with every event stored, while this stream lags.
    for (;;) {
      const t = await router.engine.getTask("slow-1");
      if (t?.status.state === "completed") break;
      await new Promise((r) => setImmediate(r));
    }
    expect(router.engine.stats().bufferedEvents).toBeLessThanOrEqual(16);
    const fallbacksBefore = router.engine.stats().logFallbacks;
    const events = await s.all();
    expect(seqs(events)).toEqual(range(1, 5001));
    // The lagging stream was served from the log, not from an ever-growing queue.
    expect(router.engine.stats().logFallbacks).toBeGreaterThan(0);
    expect(fallbacksBefore).toBeGreaterThan(0);
  });

  test("tasks/get honours historyLength", async () => {
    await rpc(router.url, "tasks/send", { id: "hist-1", message: userMessage("hello"), metadata: { agent: "echo" } });
    const full = await rpc(router.url, "tasks/get", { id: "hist-1", historyLength: 10 });
    expect(full.result.history.map((m: { role: string }) => m.role)).toEqual(["user", "agent"]);
    const one = await rpc(router.url, "tasks/get", { id: "hist-1", historyLength: 1 });
    expect(one.result.history).toHaveLength(1);
    expect(one.result.history[0].role).toBe("agent");
    const none = await rpc(router.url, "tasks/get", { id: "hist-1" });
    expect(none.result.history).toBeUndefined();
  });
});
