/**
 * A real HTTP server on 127.0.0.1:0 that speaks the OpenAI chat-completions streaming format
 * (`data: {choices:[{delta:{content}}]}` events, then `data: [DONE]`). Each request is answered by the
 * test's script; every request is recorded.
 */
import { once } from "node:events";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export interface RecordedRequest {
  method: string;
  url: string;
  headers: IncomingMessage["headers"];
  body: { model?: string; stream?: boolean; messages?: Array<{ role: string; content: string }> };
  /** Resolves when the client closes the connection (e.g. on abort). */
  closed: Promise<void>;
}

export type FakeAnswer =
  | { kind: "stream"; chunks: string[]; trailer?: string }
  | { kind: "error"; status: number; body: string }
  | { kind: "json"; content: string }
  | { kind: "hang" };

export interface FakeOpenAi {
  /** Base URL, like OPENAI_BASE_URL: `http://127.0.0.1:PORT/v1`. */
  url: string;
  requests: RecordedRequest[];
  /** Resolves with the n-th request (1-based) once it has arrived. */
  request(n: number): Promise<RecordedRequest>;
  close(): Promise<void>;
}

function sse(res: ServerResponse, data: string): void {
  res.write(`data: ${data}\n\n`);
}

/** A model turn that replies "Sure! Let me play that." token by token, then runs PLAY_MUSIC on "track". */
export function musicTurn(): FakeAnswer {
  return {
    kind: "stream",
    chunks: [
      "<response><thought>music</thought><actions>REPLY,PLAY_MUSIC</actions><providers></providers><text>",
      "Sure! ",
      "Let me play that.",
      "</text><params><PLAY_MUSIC><query>track</query></PLAY_MUSIC></params></response>",
    ],
  };
}

export async function startFakeOpenAi(answer: (request: RecordedRequest, n: number) => FakeAnswer): Promise<FakeOpenAi> {
  const requests: RecordedRequest[] = [];
  const waiters = new Map<number, (r: RecordedRequest) => void>();
  const server = createServer(async (req, res) => {
    let raw = "";
    for await (const chunk of req) raw += chunk;
    const recorded: RecordedRequest = {
      method: req.method ?? "",
      url: req.url ?? "",
      headers: req.headers,
      body: JSON.parse(raw || "{}"),
      closed: once(res, "close").then(() => undefined),
    };
    requests.push(recorded);
    const n = requests.length;
    waiters.get(n)?.(recorded);
    if (req.url !== "/v1/chat/completions") {
      res.writeHead(404, { "content-type": "application/json" }).end('{"error":{"message":"no such route"}}');
      return;
    }
    const a = answer(recorded, n);
    if (a.kind === "hang") return;
    if (a.kind === "error") {
      res.writeHead(a.status, { "content-type": "application/json" }).end(a.body);
      return;
    }
    if (a.kind === "json") {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ choices: [{ index: 0, message: { role: "assistant", content: a.content } }] }));
      return;
    }
    res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
    res.write(": keep-alive comment, ignored by parsers\n\n");
    for (const content of a.chunks) {
      sse(res, JSON.stringify({ id: "c1", object: "chat.completion.chunk", choices: [{ index: 0, delta: { content } }] }));
    }
    sse(res, a.trailer ?? JSON.stringify({ id: "c1", object: "chat.completion.chunk", choices: [{ index: 0, delta: {}, finish_reason: "stop" }] }));
    sse(res, "[DONE]");
    res.end();
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    request: (n) => (requests[n - 1] ? Promise.resolve(requests[n - 1]) : new Promise((resolve) => waiters.set(n, resolve))),
    close: async () => {
      server.closeAllConnections();
      server.close();
      await once(server, "close");
    },
  };
}

/** A port nothing listens on (bound, then released). */
export async function closedPort(): Promise<number> {
  const server = createServer();
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const { port } = server.address() as AddressInfo;
  server.close();
  await once(server, "close");
  return port;
}
