/**
 * The floor under the request hop: servers that answer every POST with a canned JSON-RPC result and do
 * nothing else (no task, no store, no agent). `raw`: node:http alone; `express`: express with its JSON
 * body parser, as the SDK's server is built. Nothing that does the work of a send can be faster than these
 * on the same machine and client, so they bound what any ratio against the SDK can be.
 */
import express from "express";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";

const RESULT = { kind: "task", id: "t", contextId: "c", status: { state: "completed" } };

const raw = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on("data", (c: Buffer) => chunks.push(c));
  req.on("end", () => {
    const { id } = JSON.parse(Buffer.concat(chunks).toString()) as { id: unknown };
    const out = JSON.stringify({ jsonrpc: "2.0", id, result: RESULT });
    res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(out) });
    res.end(out);
  });
});

const app = express();
app.post("/", express.json(), (req, res) => void res.json({ jsonrpc: "2.0", id: (req.body as { id: unknown }).id, result: RESULT }));

const server = process.argv[2] === "express" ? createServer(app) : raw;
server.listen(0, "127.0.0.1", () => console.log(JSON.stringify({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` })));
process.on("SIGTERM", () => process.exit(0));
