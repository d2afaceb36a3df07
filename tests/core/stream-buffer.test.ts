import { afterAll, beforeAll, describe, expect, test } from "@jest/globals";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { request, type IncomingMessage } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { rpc } from "../helpers/rpc.js";
import { spawnRouter, type RouterProcess } from "../helpers/spawn-router.js";
import { RawAgent, text } from "../helpers/ws-agent.js";

/**
 * CONTRACT 12 `limits.streamBufferBytes`: a stalled stream holds at most that many bytes, whatever its
 * events' sizes, and catches up from the log in pages bounded in bytes. Twenty streams that read nothing
 * while a 40 MB task of 200 KB events runs must not grow the router (a real process, its own RSS) by more
 * than 20 x streamBufferBytes + 64 MB, and each then gets every event, in order.
 */
const BUFFER = 1_048_576;
const STREAMS = 20;
const EVENTS = 200;
const EVENT_TEXT = "x".repeat(200 * 1024);

let dir: string;
let router: RouterProcess;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "a2a-stream-buffer-"));
  const config = join(dir, "config.json");
  writeFileSync(config, JSON.stringify({ limits: { streamBufferBytes: BUFFER } }));
  // A container-sized heap (small young generation, capped old space): with V8's defaults on a large machine
  // the collector lets 100+ MB of garbage pile up before it runs (each 200 KB event is parsed, serialized and
  // encoded a few times on its way, and dies at once), and RSS then measures when V8 last collected, not
  // what the streams hold. What they hold (live after a GC) is by design at most 20 x streamBufferBytes.
  router = await spawnRouter(["--store", `sqlite:${join(dir, "router.db")}`, "--config", config], {}, ["--max-old-space-size=200", "--max-semi-space-size=1"]);
});

afterAll(async () => {
  await router?.kill();
  rmSync(dir, { recursive: true, force: true });
});

function rssBytes(pid: number): number {
  return Number(readFileSync(`/proc/${pid}/status`, "utf8").match(/VmRSS:\s+(\d+)/)![1]) * 1024;
}

/** An SSE stream whose reader is paused as soon as the response starts: the router must hold back. */
function stalledStream(body: object, headers: Record<string, string> = {}): Promise<IncomingMessage> {
  const payload = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = request(router.url + "/rpc", { method: "POST", agent: false, headers: { "content-type": "application/json", ...headers } }, (res) => {
      res.pause();
      resolve(res);
    });
    req.on("error", reject);
    req.end(payload);
  });
}

/** Reads a stream to its end; returns the `id:` of every event, in order, and whether the last was final. */
function readIds(res: IncomingMessage): Promise<{ ids: number[]; final: boolean }> {
  return new Promise((resolve, reject) => {
    const ids: number[] = [];
    let tail = "";
    let last = "";
    res.setEncoding("utf8");
    res.on("data", (chunk: string) => {
      // Only the short `id:` lines matter; scan without keeping the 200 KB payloads around.
      const s = tail + chunk;
      for (const m of s.matchAll(/(?:^|\n)id: (\d+)\n/g)) ids.push(Number(m[1]));
      const cut = s.lastIndexOf("\n");
      tail = s.slice(Math.max(cut, s.length - 32));
      last = s.slice(-300);
    });
    res.on("end", () => resolve({ ids, final: last.includes('"final":true') }));
    res.on("error", reject);
    res.resume();
  });
}

describe("limits.streamBufferBytes", () => {
  test("stalled streams hold a bounded number of bytes, then get every event in order", async () => {
    const agent = new RawAgent(router.url);
    await agent.register("big");
    // Warm the router up with the same task read by one stream that keeps up, so the baseline is a
    // router whose heap is already sized for 200 KB events (V8 grows its young generation under such load
    // once, streams or not); what is measured is then what the stalled streams add.
    const warm = agent.nextTask();
    const warmStream = await stalledStream({
      jsonrpc: "2.0",
      id: 1,
      method: "tasks/sendSubscribe",
      params: { id: "warm", message: { role: "user", parts: [{ type: "text", text: "hi" }] }, metadata: { agent: "big" } },
    });
    const warmId = (await warm).params.id as string;
    const warmRead = readIds(warmStream);
    for (let i = 1; i <= EVENTS; i++) {
      agent.notify("task.status", { task_id: warmId, status: { state: "working", message: text(`${i}:${EVENT_TEXT}`) }, final: false });
      while (agent.ws.bufferedAmount > 4 * 1024 * 1024) await new Promise((r) => setImmediate(r));
    }
    agent.notify("task.complete", { task_id: warmId, status: { state: "completed", message: text("ok") }, final: true });
    expect((await warmRead).ids).toHaveLength(EVENTS + 1);
    const before = rssBytes(router.child.pid!);

    const started = agent.nextTask();
    const streams = [
      await stalledStream({
        jsonrpc: "2.0",
        id: 1,
        method: "tasks/sendSubscribe",
        params: { id: "big-1", message: { role: "user", parts: [{ type: "text", text: "go" }] }, metadata: { agent: "big" } },
      }),
    ];
    const taskId = (await started).params.id as string;
    for (let i = 1; i < STREAMS; i++) {
      streams.push(await stalledStream({ jsonrpc: "2.0", id: i + 1, method: "tasks/resubscribe", params: { id: taskId } }, { "last-event-id": "0" }));
    }

    let peak = before;
    const sampler = setInterval(() => (peak = Math.max(peak, rssBytes(router.child.pid!))), 20);
    try {
      for (let i = 1; i <= EVENTS; i++) {
        agent.notify("task.status", { task_id: taskId, status: { state: "working", message: text(`${i}:${EVENT_TEXT}`) }, final: false });
        // The agent's own socket backpressure only: the router is expected to take it at full speed.
        while (agent.ws.bufferedAmount > 4 * 1024 * 1024) await new Promise((r) => setImmediate(r));
      }
      const acked = await agent.request("task.complete", { task_id: taskId, status: { state: "completed", message: text("done") }, final: true });
      expect(acked.result).toEqual({ ok: true });
      // Stored once tasks/get says so; the stalled streams still have read nothing.
      for (;;) {
        const got = await rpc(router.url, "tasks/get", { id: taskId });
        if (got.result?.status.state === "completed") break;
        await new Promise((r) => setTimeout(r, 20));
      }
      peak = Math.max(peak, rssBytes(router.child.pid!));
    } finally {
      clearInterval(sampler);
    }
    expect(peak - before).toBeLessThanOrEqual(STREAMS * BUFFER + 64 * 1024 * 1024);

    const read = await Promise.all(streams.map(readIds));
    const expected = Array.from({ length: EVENTS + 1 }, (_, i) => i + 1);
    for (const r of read) {
      expect(r.ids).toEqual(expected);
      expect(r.final).toBe(true);
    }
    await agent.close();
  }, 120_000);
});
