/**
 * The faces the `faces` scenario (bench/faces.ts) measures, one entry each: how a client of that face runs
 * one turn of the bench's hub agent `bench` (its message's text is the number of events the agent streams)
 * and hands every message it reads to `seen` (the scenario finds the first event in it and counts messages).
 * The first entry is the baseline every other is compared with. An SSE face is one `sseFace(...)` line;
 * any other transport (gRPC, an MCP client) is an object with `open` returning a `turn`.
 */
import { randomUUID } from "node:crypto";
import { join } from "node:path";
import * as grpc from "@grpc/grpc-js";
import * as protoLoader from "@grpc/proto-loader";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { freePort, sseRequest, type Child } from "./lib.js";

/** What the agent's events are: progress lines (a message each on every face) or the answer's deltas. */
export type TextKind = "progress" | "delta";

export interface FaceClient {
  /** Runs one turn whose message text is `text`; `seen` gets each message read (its text or JSON); resolves at its end. */
  turn(text: string, seen: (data: string) => void): Promise<void>;
  close?(): Promise<void>;
}

export interface Face {
  name: string;
  /** The kinds of events this face writes one message per event for (default both). */
  kinds?: TextKind[];
  /** Environment the router needs for this face (a port to listen on, say); merged over every face's. */
  routerEnv?: () => NodeJS.ProcessEnv | Promise<NodeJS.ProcessEnv>;
  /** A client of this face against `router` (`env`: the merged routerEnv the router was started with). */
  open(router: Child, env: NodeJS.ProcessEnv): Promise<FaceClient>;
}

/** A face read as SSE: a POST of `body(text)` to `path` of the router, every `data:` line one message. */
export function sseFace(name: string, path: string, body: (text: string) => object, headers: Record<string, string> = {}): Face {
  return {
    name,
    open: async (router) => ({
      turn: (text, seen) => sseRequest(router.url + path, body(text), seen, headers).done.then(() => undefined),
    }),
  };
}

export const FACES: Face[] = [
  // The baseline: the agent's own A2A JSON-RPC endpoint, v0.3 `message/stream`.
  sseFace("JSON-RPC message/stream", "/agents/bench", (text) => ({
    jsonrpc: "2.0",
    id: 1,
    method: "message/stream",
    params: { message: { kind: "message", messageId: randomUUID(), role: "user", parts: [{ kind: "text", text }] } },
  })),
  sseFace("REST message:stream", "/agents/bench/rest/message:stream", (text) => ({
    message: { messageId: randomUUID(), role: "ROLE_USER", parts: [{ text }] },
  })),
  sseFace("/v1/chat/completions", "/v1/chat/completions", (text) => ({ model: "bench", messages: [{ role: "user", content: text }], stream: true })),
  // A new chat id each turn: a chat whose last task waits for input would continue it.
  sseFace("/api/chat", "/api/chat", (text) => ({
    id: randomUUID(),
    agent: "bench",
    messages: [{ id: randomUUID(), role: "user", parts: [{ type: "text", text }] }],
  })),
  // The OpenAI Responses API (CONTRACT 15): typed SSE events, progress as reasoning summary deltas.
  sseFace("/v1/responses", "/v1/responses", (text) => ({ model: "bench", input: text, stream: true })),
  grpcFace(),
  mcpFace(),
  mcpRawFace(),
];

/** gRPC (CONTRACT 17) as a grpc-js user writes it: the spec's proto loaded with proto-loader, the tenant naming the agent. */
function grpcFace(): Face {
  return {
    name: "gRPC SendStreamingMessage",
    routerEnv: async () => ({ GRPC_PORT: String(await freePort()) }),
    async open(_router, env) {
      const options = { includeDirs: [join(process.cwd(), "schemas")], longs: String, enums: String, oneofs: true };
      const def = protoLoader.loadSync("a2a-v1.0.1.proto", options);
      const { lf } = grpc.loadPackageDefinition(def) as unknown as { lf: { a2a: { v1: { A2AService: grpc.ServiceClientConstructor } } } };
      const client = new lf.a2a.v1.A2AService(`127.0.0.1:${env.GRPC_PORT}`, grpc.credentials.createInsecure());
      const stream = (client as unknown as Record<string, (req: object) => grpc.ClientReadableStream<object>>).SendStreamingMessage!.bind(client);
      return {
        turn: (text, seen) =>
          new Promise<void>((resolve, reject) => {
            const call = stream({ tenant: "bench", message: { messageId: randomUUID(), role: "ROLE_USER", parts: [{ text }] } });
            call.on("data", (m: object) => seen(JSON.stringify(m)));
            call.on("end", () => resolve());
            call.on("error", reject);
          }),
        close: async () => client.close(),
      };
    },
  };
}

/** An MCP host (CONTRACT 16): a tools/call with a progress token; progress only (answer deltas send no notification). */
function mcpFace(): Face {
  return {
    name: "MCP tools/call",
    kinds: ["progress"],
    async open(router) {
      const client = new Client({ name: "bench", version: "1.0.0" });
      await client.connect(new StreamableHTTPClientTransport(new URL(`${router.url}/mcp`)));
      return {
        async turn(text, seen) {
          const result = await client.callTool({ name: "bench", arguments: { message: text } }, undefined, {
            onprogress: (p) => seen(p.message ?? ""),
            timeout: 600_000,
          });
          seen(JSON.stringify(result));
        },
        close: () => client.close(),
      };
    },
  };
}

/**
 * The same tool call read by a host that parses SSE as the baseline's client does (no SDK): the router's own
 * cost apart from the SDK client's (zod checks of each message, a web-stream pipeline per event), which is
 * the host's. A diagnostic beside the SDK host, not a second target.
 */
function mcpRawFace(): Face {
  return {
    name: "MCP tools/call, raw host",
    kinds: ["progress"],
    async open(router) {
      const url = `${router.url}/mcp`;
      const headers = await rawMcpSession(url, "bench-raw");
      let id = 0;
      return {
        turn: (text, seen) => {
          id++;
          const params = { name: "bench", arguments: { message: text }, _meta: { progressToken: id } };
          return sseRequest(url, { jsonrpc: "2.0", id, method: "tools/call", params }, seen, headers).done.then(() => undefined);
        },
      };
    },
  };
}

/**
 * Opens an MCP session as a raw host does (`initialize`, then `notifications/initialized`, by plain fetch) and
 * returns the headers its later requests carry. Shared by the raw-host face and bench/mcp-probe.ts.
 */
export async function rawMcpSession(url: string, clientName: string): Promise<Record<string, string>> {
  const version = "2025-11-25";
  const base = { "content-type": "application/json", accept: "application/json, text/event-stream" };
  const init = await fetch(url, {
    method: "POST",
    headers: base,
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 0,
      method: "initialize",
      params: { protocolVersion: version, capabilities: {}, clientInfo: { name: clientName, version: "1.0.0" } },
    }),
  });
  const session = init.headers.get("mcp-session-id");
  await init.text();
  if (!session) throw new Error(`MCP initialize answered ${init.status} without a session`);
  const headers = { ...base, "mcp-session-id": session, "mcp-protocol-version": version };
  await (await fetch(url, { method: "POST", headers, body: JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }) })).text();
  return headers;
}
