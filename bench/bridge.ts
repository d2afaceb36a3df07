/**
 * The baseline the router's relay is measured against: a bare WebSocket -> SSE bridge with no store, no
 * log, no schema checks. An agent connects on /hub (same frames as the router's hub); a client POSTs
 * tasks/sendSubscribe, the bridge sends the agent task.execute and writes each update it gets back as one
 * SSE frame in the same v0.1 shape the router writes. Heartbeats on idle streams, like the router.
 */
import { createServer, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { WebSocketServer, type WebSocket } from "ws";

const heartbeatMs = Number(process.env.HEARTBEAT_MS ?? 15000);
const streams = new Map<string, { res: ServerResponse; rid: unknown; seq: number }>();
let agent: WebSocket | undefined;
const server = createServer((req, res) => {
  let body = "";
  req.on("data", (c) => (body += c));
  req.on("end", () => {
    const { id: rid, params } = JSON.parse(body);
    res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
    const ping = setInterval(() => res.write(": ping\n\n"), heartbeatMs);
    res.on("close", () => {
      clearInterval(ping);
      streams.delete(params.id);
    });
    streams.set(params.id, { res, rid, seq: 0 });
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
    s.res.write(`id: ${++s.seq}\ndata: ${JSON.stringify({ jsonrpc: "2.0", id: s.rid, result })}\n\n`);
    if (final) s.res.end();
  });
});
server.listen(0, "127.0.0.1", () => console.log(JSON.stringify({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` })));
process.on("SIGTERM", () => process.exit(0));
