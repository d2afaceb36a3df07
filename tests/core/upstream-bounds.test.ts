import { afterAll, beforeAll, describe, expect, test } from "@jest/globals";
import { createServer, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { RunningRouter } from "../../router/index.js";
import { MAX_CARD_BYTES } from "../../router/upstream/limits.js";
import { getJson, openStream, rpc, statusText, userMessage } from "../helpers/rpc.js";
import { testRouter } from "../helpers/router.js";

/**
 * What an upstream agent's server may send in one piece is bounded (router/upstream/limits.ts): one
 * JSON answer, one SSE event (`maxAnswerBytes`, 16 MiB; lowered here to keep the test small), a card (1 MiB).
 * Past the bound the turn fails saying so and the router goes on; many events that are each small pass
 * however much they add up to. Real HTTP servers on loopback, bodies chunked as they come.
 */

const BOUND = 256 * 1024;
const working = (text: string) => ({
  kind: "status-update",
  taskId: "t",
  contextId: "c",
  final: false,
  status: { state: "working", message: { kind: "message", messageId: "m", role: "agent", parts: [{ kind: "text", text }] } },
});
const done = { kind: "status-update", taskId: "t", contextId: "c", final: true, status: { state: "completed" } };
const sse = (result: unknown) => `data: ${JSON.stringify({ jsonrpc: "2.0", id: 1, result })}\n\n`;

/** Each scripted agent writes its answer in 16 KB writes, so no bound is met by a single chunk. */
function writeSlowly(res: ServerResponse, text: string): void {
  for (let at = 0; at < text.length; at += 16 * 1024) res.write(text.slice(at, at + 16 * 1024));
  res.end();
}

const SCRIPTS: Record<string, (res: ServerResponse) => void> = {
  // A JSON answer past the bound, with and without a Content-Length saying so.
  "big-json": (res) => {
    const body = JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      result: { kind: "task", id: "t", contextId: "c", status: { state: "completed" }, metadata: { pad: "x".repeat(BOUND) } },
    });
    res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(body) }).end(body);
  },
  "big-chunked-json": (res) => {
    res.writeHead(200, { "content-type": "application/json" });
    writeSlowly(
      res,
      JSON.stringify({ jsonrpc: "2.0", id: 1, result: { kind: "task", id: "t", status: { state: "completed" }, metadata: { pad: "x".repeat(BOUND) } } }),
    );
  },
  // One event that never ends within the bound, after one that is fine.
  "endless-event": (res) => {
    res.writeHead(200, { "content-type": "text/event-stream" });
    res.write(sse(working("first")));
    writeSlowly(res, `data: ${"x".repeat(BOUND * 2)}`);
  },
  // Twenty events of nearly the bound each: twenty times the bound in all, none of them past it.
  "many-events": (res) => {
    res.writeHead(200, { "content-type": "text/event-stream" });
    let body = "";
    for (let i = 0; i < 20; i++) body += sse(working(`${i}:${"y".repeat(BOUND - 1024)}`));
    writeSlowly(res, body + sse(done));
  },
};

let server: Server;
let router: RunningRouter;

beforeAll(async () => {
  server = createServer((req, res) => {
    const name = (req.url ?? "").split("/")[2] ?? "";
    if (req.method === "GET" && name === "big-card" && req.url!.endsWith("agent-card.json")) {
      res.writeHead(200, { "content-type": "application/json" });
      return writeSlowly(res, JSON.stringify({ name: "Huge", description: "x".repeat(MAX_CARD_BYTES), url: "http://127.0.0.1:9/x" }));
    }
    const script = SCRIPTS[name];
    if (req.method !== "POST" || !script) return void res.writeHead(404).end();
    req.resume();
    req.on("end", () => script(res));
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/agents`;
  const names = [...Object.keys(SCRIPTS), "big-card"];
  router = await testRouter({
    config: { agents: names.map((name) => ({ id: name, url: `${base}/${name}`, ...(name !== "big-card" && { protocol: "0.3" }) })) },
    upstream: { maxAnswerBytes: BOUND },
  });
});

afterAll(async () => {
  await router.close();
  await new Promise((r) => server.close(r));
});

describe("bounds on an upstream agent's answers", () => {
  test.each(["big-json", "big-chunked-json"])("%s: a JSON answer past the bound fails the turn, saying so", async (agent) => {
    const r = await rpc(router.url, "tasks/send", { id: `t-${agent}`, message: userMessage("hi"), metadata: { agent } });
    expect(r.result.status.state).toBe("failed");
    expect(r.result.status.message.parts[0].text).toBe(`Upstream agent ${agent} sent an answer of more than ${BOUND} bytes`);
  });

  test("an SSE event that outgrows the bound ends the stream; the events before it are kept", async () => {
    const s = await openStream(router.url, "tasks/sendSubscribe", { id: "t-endless", message: userMessage("hi"), metadata: { agent: "endless-event" } });
    const events = await s.all();
    expect(events.map((e) => e.data.result.status.state)).toEqual(["working", "failed"]);
    expect(statusText(events[1]!)).toBe(`Upstream agent endless-event sent an event of more than ${BOUND} characters; its stream was given up`);
  });

  test("many events under the bound pass, however much they add up to", async () => {
    const s = await openStream(router.url, "tasks/sendSubscribe", { id: "t-many", message: userMessage("hi"), metadata: { agent: "many-events" } });
    const events = await s.all();
    expect(events).toHaveLength(21);
    expect(events.slice(0, 20).map((e) => statusText(e).split(":")[0])).toEqual(Array.from({ length: 20 }, (_, i) => String(i)));
    expect(events[20]!.data.result).toMatchObject({ status: { state: "completed" }, final: true });
  });

  test("a card past 1 MiB is not read: the agent is listed under its config id, and the router serves on", async () => {
    const { agents } = await getJson(router.url + "/agents");
    const big = agents.find((a: { id: string }) => a.id === "big-card");
    expect(big).toMatchObject({ id: "big-card", name: "big-card", online: true });
    expect(big.card?.name).not.toBe("Huge");
  });
});
