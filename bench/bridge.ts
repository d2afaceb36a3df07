/**
 * The baseline the router's relay is measured against: a bare WebSocket -> SSE bridge with no store, no
 * log, no schema checks. An agent connects on /hub (same frames as the router's hub); a client POSTs
 * tasks/sendSubscribe, the bridge sends the agent task.execute and writes each update it gets back as one
 * SSE frame in the same v0.1 shape the router writes; `tasks/resubscribe` adds a stream to a task (its update
 * rendered once and written to each). Heartbeats on idle streams, like the router.
 */
import { createServer, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { WebSocketServer, type WebSocket } from "ws";

const heartbeatMs = Number(process.env.HEARTBEAT_MS ?? 15000);
/** A task's streams: the one that sent it, then any that resubscribed (a fan-out renders an update once). */
const streams = new Map<string, { subs: Array<{ res: ServerResponse; rid: string }>; seq: number }>();
let agent: WebSocket | undefined;
const server = createServer((req, res) => {
  let body = "";
  req.on("data", (c) => (body += c));
  req.on("end", () => {
    const { id: rid, method, params } = JSON.parse(body);
    res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
    // Open at once, as the router's streams are (a resubscriber waits for its headers before the task streams).
    res.flushHeaders();
    const ping = setInterval(() => res.write(": ping\n\n"), heartbeatMs);
    const sub = { res, rid: JSON.stringify(rid) };
    res.on("close", () => {
      clearInterval(ping);
      const s = streams.get(params.id);
      if (!s) return;
      s.subs = s.subs.filter((x) => x !== sub);
      if (s.subs.length === 0) streams.delete(params.id);
    });
    const known = streams.get(params.id);
    if (method === "tasks/resubscribe") {
      if (known) known.subs.push(sub);
      else streams.set(params.id, { subs: [sub], seq: 0 });
      return;
    }
    streams.set(params.id, { subs: [sub], seq: 0 });
    agent?.send(JSON.stringify({ jsonrpc: "2.0", id: params.id, method: "task.execute", params: { id: params.id, message: params.message, metadata: {} } }));
  });
});
const wss = new WebSocketServer({ server, path: "/hub", perMessageDeflate: false });
wss.on("connection", (ws) => {
  agent = ws;
  ws.send(JSON.stringify({ jsonrpc: "2.0", method: "connection.established", params: { connection_id: "1" } }));
  ws.on("message", (data) => {
    const f = JSON.parse(data.toString());
    if (f.method === "agent.register") return void ws.send(JSON.stringify({ jsonrpc: "2.0", id: f.id, result: { registered: true } }));
    const s = streams.get(f.params?.task_id);
    if (!s) return;
    const final = f.method === "task.complete";
    const result =
      f.method === "task.artifact"
        ? { id: f.params.task_id, artifact: f.params.artifact }
        : { id: f.params.task_id, status: { ...f.params.status, timestamp: new Date().toISOString() }, final };
    const json = JSON.stringify(result);
    const seq = ++s.seq;
    for (const sub of s.subs) {
      sub.res.write(`id: ${seq}\ndata: {"jsonrpc":"2.0","id":${sub.rid},"result":${json}}\n\n`);
      if (final) sub.res.end();
    }
  });
});
server.listen(0, "127.0.0.1", () => console.log(JSON.stringify({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` })));
process.on("SIGTERM", () => process.exit(0));
