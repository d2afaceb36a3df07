import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

type Json = Record<string, any>;

/**
 * A small v0.1 A2A agent over HTTP for tests. What it does depends on the message text:
 * "break" cuts the stream after one event, "rpc-error" answers a JSON-RPC error, "http-500" an HTTP
 * error, "hang" waits until canceled; anything else streams "working: <text>", an artifact, and completes.
 */
export class V01Upstream {
  server: Server;
  url = "";
  readonly calls: Json[] = [];
  readonly cancels: string[] = [];
  /** Paths of every GET (card lookups). */
  readonly gets: string[] = [];
  #hanging = new Map<string, ServerResponse>();

  constructor(readonly opts: { streaming: boolean; cardPath?: string | null }) {
    this.server = createServer((req, res) => void this.#handle(req, res));
  }

  /** Listens on `port` (0: any free one). */
  async start(port = 0): Promise<this> {
    await new Promise<void>((r) => this.server.listen(port, "127.0.0.1", r));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise((r) => this.server.close(r));
  }

  async #handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const cardPath = this.opts.cardPath === undefined ? "/.well-known/agent.json" : this.opts.cardPath;
    if (req.method === "GET") {
      this.gets.push(req.url ?? "");
      if (req.url === cardPath) {
        res.setHeader("content-type", "application/json");
        res.end(
          JSON.stringify({
            name: "Upstream v0.1",
            description: "test agent",
            url: this.url,
            version: "1.0.0",
            capabilities: { streaming: this.opts.streaming },
            skills: [{ id: "shout", name: "Shout", description: "upper-cases" }],
          }),
        );
      } else {
        res.statusCode = 404;
        res.end();
      }
      return;
    }
    let raw = "";
    for await (const chunk of req) raw += chunk;
    const body = JSON.parse(raw) as Json;
    this.calls.push({ ...body, headers: req.headers });
    const { id, method, params } = body;
    const reply = (result: Json) => {
      res.setHeader("content-type", "application/json");
      res.end(JSON.stringify({ jsonrpc: "2.0", id, result }));
    };
    if (method === "tasks/cancel") {
      this.cancels.push(params.id);
      this.#hanging.get(params.id)?.end();
      return reply({ id: params.id, status: { state: "canceled" } });
    }
    const text: string = params.message.parts[0].text;
    const msg = (t: string) => ({ role: "agent", parts: [{ type: "text", text: t }] });
    if (text === "http-500") {
      res.statusCode = 500;
      return void res.end("upstream exploded");
    }
    if (text === "rpc-error") {
      res.setHeader("content-type", "application/json");
      return void res.end(JSON.stringify({ jsonrpc: "2.0", id, error: { code: -32603, message: "model overloaded" } }));
    }
    if (method === "tasks/send") {
      return reply({
        id: params.id,
        sessionId: params.sessionId,
        status: { state: "completed", message: msg(text.toUpperCase()) },
        artifacts: [{ name: "shout", parts: [{ type: "text", text: text.toUpperCase() }], index: 0 }],
      });
    }
    res.writeHead(200, { "content-type": "text/event-stream" });
    const send = (result: Json, then?: () => void) => res.write(`data: ${JSON.stringify({ jsonrpc: "2.0", id, result })}\n\n`, then);
    if (text === "break") {
      // Cut the connection only once the first event is on the wire.
      return void send({ id: params.id, status: { state: "working", message: msg(`working: ${text}`) }, final: false }, () => res.socket?.destroy());
    }
    send({ id: params.id, status: { state: "working", message: msg(`working: ${text}`) }, final: false });
    if (text === "hang") {
      this.#hanging.set(params.id, res);
      return;
    }
    send({ id: params.id, artifact: { name: "shout", parts: [{ type: "text", text: text.toUpperCase() }], index: 0 } });
    send({ id: params.id, status: { state: "completed", message: msg(text.toUpperCase()) }, final: true });
    res.end();
  }
}
