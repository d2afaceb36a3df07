import WebSocket from "ws";
import { openStream, userMessage, type SseStream } from "./rpc.js";

type Frame = Record<string, any>;

/**
 * A raw hub agent for tests: speaks the hub protocol frame by frame, so tests can assert exactly what
 * the hub sends and answers.
 */
export class RawAgent {
  readonly ws: WebSocket;
  readonly frames: Frame[] = [];
  #waiters: Array<{ match: (f: Frame) => boolean; resolve: (f: Frame) => void }> = [];
  #seq = 0;
  readonly closed: Promise<void>;

  constructor(url: string, opts: { token?: string; query?: boolean } = {}) {
    const hub = url.replace(/^http/, "ws") + "/hub" + (opts.token && opts.query ? `?token=${encodeURIComponent(opts.token)}` : "");
    this.ws = new WebSocket(hub, opts.token && !opts.query ? { headers: { Authorization: `Bearer ${opts.token}` } } : {});
    this.ws.on("message", (data) => {
      const f = JSON.parse(String(data)) as Frame;
      this.frames.push(f);
      for (const w of [...this.#waiters]) {
        if (w.match(f)) {
          this.#waiters.splice(this.#waiters.indexOf(w), 1);
          w.resolve(f);
        }
      }
    });
    this.closed = new Promise((r) => this.ws.once("close", () => r()));
  }

  async open(): Promise<void> {
    if (this.ws.readyState === WebSocket.OPEN) return;
    await new Promise<void>((resolve, reject) => {
      this.ws.once("open", () => resolve());
      this.ws.once("error", reject);
    });
  }

  /** Resolves with the first frame (already received or future) matching. */
  waitFor(match: (f: Frame) => boolean): Promise<Frame> {
    const seen = this.frames.find(match);
    if (seen) return Promise.resolve(seen);
    return new Promise((resolve) => this.#waiters.push({ match, resolve }));
  }

  /** Resolves with the next future frame matching (ignores frames already received). */
  nextFrame(match: (f: Frame) => boolean): Promise<Frame> {
    return new Promise((resolve) => this.#waiters.push({ match, resolve }));
  }

  notify(method: string, params: unknown): void {
    this.ws.send(JSON.stringify({ jsonrpc: "2.0", method, params }));
  }

  /** Sends a request and resolves with its response frame. */
  request(method: string, params: unknown): Promise<Frame> {
    const id = `r${++this.#seq}`;
    const answer = this.waitFor((f) => f.id === id && ("result" in f || "error" in f));
    this.ws.send(JSON.stringify({ jsonrpc: "2.0", id, method, params }));
    return answer;
  }

  async register(name: string, extra: Record<string, unknown> = {}): Promise<Frame> {
    await this.open();
    return this.request("agent.register", { agent_name: name, ...extra });
  }

  /** The next task.execute the hub sends. */
  nextTask(): Promise<Frame> {
    return this.nextFrame((f) => f.method === "task.execute");
  }

  /** Sends what `send` sends in one TCP write (the router then reads it all in one turn of its event loop). */
  inOneWrite<T>(send: () => T): T {
    const socket = (this.ws as unknown as { _socket: import("node:net").Socket })._socket;
    socket.cork();
    try {
      return send();
    } finally {
      socket.uncork();
    }
  }

  close(): Promise<void> {
    this.ws.close();
    return this.closed;
  }
}

export const text = (t: string) => ({ role: "agent", parts: [{ type: "text", text: t }] });

/**
 * A raw hub agent registered as `name`, and a v0.1 stream of task `taskId` sent to it (`ask` as the user's
 * text), returned once the hub has handed the task to the agent.
 */
export async function hubTaskStream(url: string, name: string, taskId: string, ask = "go"): Promise<{ agent: RawAgent; stream: SseStream }> {
  const agent = new RawAgent(url);
  await agent.register(name);
  const exec = agent.nextTask();
  const stream = await openStream(url, "tasks/sendSubscribe", { id: taskId, message: userMessage(ask), metadata: { agent: name } });
  await exec;
  return { agent, stream };
}
