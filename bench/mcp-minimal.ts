/**
 * A minimal MCP server on the SDK alone (its low-level Server, the SDK's node Streamable HTTP transport, one per session,
 * no event store): a tool `bench` whose message text N makes it send N progress notifications (`evI.`), then
 * answer. The floor an SDK host's tool call costs against the SDK's own server (bench/mcp-probe.ts).
 * MINIMAL_PAUSE_MS: the tool waits this long before its first notification and before its answer, so the
 * response comes in pieces over time as the router's does (headers, progress, result), not in one write. Then
 * the SDK's node adapter (@hono/node-server) holds the head for a `setTimeout` (>= 1 ms) when the body's second
 * read is not ready (it tries for a content-length): a tool that does not answer at once pays that wait. Without
 * a pause the tool answers within the request's microtasks (no await before its notification), in one write.
 */
import { randomUUID } from "node:crypto";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { CallToolRequestSchema, isInitializeRequest } from "@modelcontextprotocol/sdk/types.js";

const transports = new Map<string, StreamableHTTPServerTransport>();
const PAUSE_MS = Number(process.env.MINIMAL_PAUSE_MS ?? 0);

function serverFor(): Server {
  const server = new Server({ name: "minimal", version: "1.0.0" }, { capabilities: { tools: {} } });
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const n = Number(request.params.arguments?.message) || 1;
    const token = request.params._meta?.progressToken;
    if (PAUSE_MS > 0) await new Promise((r) => setTimeout(r, PAUSE_MS));
    if (token !== undefined)
      for (let i = 1; i <= n; i++)
        await extra.sendNotification({ method: "notifications/progress", params: { progressToken: token, progress: i, message: `ev${i}.` } });
    if (PAUSE_MS > 0) await new Promise((r) => setTimeout(r, PAUSE_MS));
    return { content: [{ type: "text", text: "done" }] };
  });
  return server;
}

const http = createServer(async (req, res) => {
  let body = "";
  for await (const c of req) body += c;
  const parsed = body ? JSON.parse(body) : undefined;
  const sid = req.headers["mcp-session-id"];
  let transport = typeof sid === "string" ? transports.get(sid) : undefined;
  if (!transport && isInitializeRequest(parsed)) {
    const t = new StreamableHTTPServerTransport({ sessionIdGenerator: randomUUID, onsessioninitialized: (id) => void transports.set(id, t) });
    await serverFor().connect(t);
    transport = t;
  }
  if (!transport) return void res.writeHead(404).end();
  await transport.handleRequest(req, res, parsed);
});
http.listen(0, "127.0.0.1", () => console.log(JSON.stringify({ url: `http://127.0.0.1:${(http.address() as AddressInfo).port}` })));
