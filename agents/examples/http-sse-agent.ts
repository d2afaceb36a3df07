/**
 * A small upstream A2A v0.1 agent over plain HTTP + SSE (no SDK, no framework): what the router's
 * `agents: [{id, url}]` config points at. It serves its card at /.well-known/agent.json and answers
 * tasks/send, tasks/sendSubscribe (SSE), tasks/get and tasks/cancel. Its one skill, `reverse`,
 * reverses each word of your message and streams the words as it goes.
 *
 * Run: `npm run build && node dist/agents/examples/http-sse-agent.js`
 * Env: PORT (default 9001), HOST (default 127.0.0.1; 0.0.0.0 in a container).
 * Then add it to a2a-router.config.json: {"agents": [{"id": "reverser", "url": "http://127.0.0.1:9001"}]}
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { setImmediate as nextTurn } from "node:timers/promises";
import { failure, JSONRPC_CODES, success, type RpcErrorBody, type RpcId } from "../../router/jsonrpc/index.js";
import { formatEvent, SSE_HEADERS } from "../../router/sse/format.js";
import { closeOnSignals, isMain } from "./run-main.js";

const MAX_BODY_BYTES = 1_048_576;
const TERMINAL = new Set(["completed", "canceled", "failed"]);
/** The A2A error codes this agent answers with (A2A spec 5.4); the rest are JSON-RPC 2.0's own. */
const A2A_CODES = { TASK_NOT_FOUND: -32001, TASK_NOT_CANCELABLE: -32002 } as const;

/** A refusal, answered as the JSON-RPC error it carries. */
class Fault extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: Record<string, unknown>,
  ) {
    super(message);
  }

  body(): RpcErrorBody {
    return this.data === undefined ? { code: this.code, message: this.message } : { code: this.code, message: this.message, data: this.data };
  }
}

function invalidParams(detail: string, field: string): Fault {
  return new Fault(JSONRPC_CODES.INVALID_PARAMS, `Invalid params: ${detail}`, { field });
}

function taskNotFound(id: string): Fault {
  return new Fault(A2A_CODES.TASK_NOT_FOUND, `Task not found: ${id}`, { taskId: id });
}

type Part = { type: "text"; text: string };
interface Task {
  id: string;
  sessionId: string;
  status: { state: string; message?: { role: "agent"; parts: Part[] }; timestamp: string };
  artifacts: unknown[];
  metadata: Record<string, unknown>;
}

function agentMessage(text: string) {
  return { role: "agent" as const, parts: [{ type: "text" as const, text }] };
}

function status(state: string, text?: string): Task["status"] {
  return { state, ...(text !== undefined && { message: agentMessage(text) }), timestamp: new Date().toISOString() };
}

async function readBody(req: IncomingMessage): Promise<string> {
  let size = 0;
  const chunks: Buffer[] = [];
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) throw new Fault(JSONRPC_CODES.INVALID_REQUEST, `Invalid request: body larger than ${MAX_BODY_BYTES} bytes`);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString("utf8");
}

/** The skill: each word reversed, one chunk per word. */
function* reverseWords(text: string): Generator<string> {
  const words = text.split(/(\s+)/);
  for (const word of words) if (word !== "") yield [...word].reverse().join("");
}

interface SendParams {
  id: string;
  sessionId?: string;
  message: { parts: Array<{ type?: string; text?: string }> };
  metadata?: Record<string, unknown>;
}

function sendParams(params: unknown): SendParams {
  const p = params as Partial<SendParams> | undefined;
  if (!p || typeof p !== "object") throw invalidParams("params must be an object", "params");
  if (typeof p.id !== "string" || p.id === "") throw invalidParams("id must be a non-empty string", "id");
  if (!p.message || !Array.isArray(p.message.parts)) throw invalidParams("message.parts must be an array", "message.parts");
  return p as SendParams;
}

function taskIdOf(params: unknown): string {
  const id = (params as { id?: unknown } | undefined)?.id;
  if (typeof id !== "string" || id === "") throw invalidParams("id must be a non-empty string", "id");
  return id;
}

export interface RunningHttpAgent {
  url: string;
  port: number;
  close(): Promise<void>;
}

/** Starts the agent; port 0 picks a free one. */
export async function startHttpSseAgent(options: { host?: string; port?: number } = {}): Promise<RunningHttpAgent> {
  const tasks = new Map<string, { task: Task; cancel: AbortController }>();

  function begin(p: SendParams) {
    const existing = tasks.get(p.id);
    if (existing && !TERMINAL.has(existing.task.status.state)) existing.cancel.abort();
    const task: Task = { id: p.id, sessionId: p.sessionId ?? p.id, status: status("working"), artifacts: [], metadata: p.metadata ?? {} };
    const entry = { task, cancel: new AbortController() };
    tasks.set(p.id, entry);
    const text = p.message.parts.map((part) => (part.type === "text" || part.type === undefined ? (part.text ?? "") : "")).join("");
    return { entry, text };
  }

  async function handle(method: string, params: unknown, rpcId: RpcId, res: ServerResponse): Promise<unknown> {
    switch (method) {
      case "tasks/send": {
        const { entry, text } = begin(sendParams(params));
        entry.task.status = status("completed", [...reverseWords(text)].join(""));
        return entry.task;
      }
      case "tasks/sendSubscribe": {
        const { entry, text } = begin(sendParams(params));
        res.writeHead(200, SSE_HEADERS);
        let closed = false;
        res.on("close", () => (closed = true));
        const write = (result: unknown) => res.write(formatEvent(JSON.stringify(success(rpcId, result))));
        let answer = "";
        for (const chunk of reverseWords(text)) {
          if (closed) return undefined;
          if (entry.cancel.signal.aborted) break;
          answer += chunk;
          write({ id: entry.task.id, status: status("working", chunk), final: false });
          await nextTurn();
        }
        entry.task.status = entry.cancel.signal.aborted ? status("canceled") : status("completed", answer);
        write({ id: entry.task.id, status: entry.task.status, final: true });
        res.end();
        return undefined;
      }
      case "tasks/get": {
        const id = taskIdOf(params);
        const entry = tasks.get(id);
        if (!entry) throw taskNotFound(id);
        return entry.task;
      }
      case "tasks/cancel": {
        const id = taskIdOf(params);
        const entry = tasks.get(id);
        if (!entry) throw taskNotFound(id);
        if (TERMINAL.has(entry.task.status.state))
          throw new Fault(A2A_CODES.TASK_NOT_CANCELABLE, `Task cannot be canceled: ${id} is ${entry.task.status.state}`, {
            taskId: id,
            state: entry.task.status.state,
          });
        entry.cancel.abort();
        entry.task.status = status("canceled");
        return entry.task;
      }
      default:
        throw new Fault(JSONRPC_CODES.METHOD_NOT_FOUND, `Method not found: ${method}`, { method });
    }
  }

  const server = createServer(async (req, res) => {
    const path = new URL(req.url ?? "/", "http://agent").pathname;
    if (req.method === "GET" && path === "/healthz") {
      res.writeHead(200, { "Content-Type": "application/json" }).end('{"status":"ok"}');
      return;
    }
    if (req.method === "GET" && path === "/.well-known/agent.json") {
      // The card names the URL the caller reached us by, so it is right behind docker's service names too.
      const card = {
        name: "reverser",
        description: "Reverses each word of your message, streaming word by word (an A2A v0.1 agent).",
        url: `http://${req.headers.host ?? "127.0.0.1"}/`,
        version: "1.0.0",
        capabilities: { streaming: true, pushNotifications: false },
        defaultInputModes: ["text"],
        defaultOutputModes: ["text"],
        skills: [{ id: "reverse", name: "reverse", description: "Reverses each word.", examples: ["hello world"] }],
      };
      res.writeHead(200, { "Content-Type": "application/json" }).end(JSON.stringify(card));
      return;
    }
    if (req.method !== "POST" || path !== "/") {
      res.writeHead(404, { "Content-Type": "application/json" }).end('{"error":"not found"}');
      return;
    }
    let rpcId: RpcId = null;
    try {
      let body: { id?: RpcId; method?: unknown; params?: unknown };
      try {
        body = JSON.parse(await readBody(req));
      } catch (err) {
        throw err instanceof Fault ? err : new Fault(JSONRPC_CODES.PARSE_ERROR, `Parse error: ${(err as Error).message}`);
      }
      rpcId = body?.id ?? null;
      if (typeof body?.method !== "string") throw new Fault(JSONRPC_CODES.INVALID_REQUEST, "Invalid request: method must be a string", { field: "method" });
      const result = await handle(body.method, body.params, rpcId, res);
      if (result !== undefined) res.writeHead(200, { "Content-Type": "application/json" }).end(JSON.stringify(success(rpcId, result)));
    } catch (err) {
      const error = err instanceof Fault ? err : new Fault(JSONRPC_CODES.INTERNAL_ERROR, `Internal error: ${(err as Error).message}`);
      if (!res.headersSent) res.writeHead(200, { "Content-Type": "application/json" });
      res.end(JSON.stringify(failure(rpcId, error.body())));
    }
  });

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 9001, options.host ?? "127.0.0.1", () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

if (isMain(import.meta.url)) {
  const port = Number.parseInt(process.env.PORT ?? "9001", 10);
  const agent = await startHttpSseAgent({ host: process.env.HOST ?? "127.0.0.1", port });
  process.stderr.write(`A2A v0.1 agent "reverser" on port ${agent.port} (card: /.well-known/agent.json)\n`);
  closeOnSignals(() => agent.close());
}
