import type { AddressInfo } from "node:net";
import { afterEach, beforeEach, describe, expect, test } from "@jest/globals";
import { WebSocketServer, type WebSocket } from "ws";
import { AgentOptionsError, backoffDelay, connectAgent, type Agent } from "../../agents/sdk/index.js";
import { deferred, memoryLogger } from "./helpers.js";

/**
 * A scripted stand-in for the hub, for what a real router cannot show: the frames an agent sends
 * while the hub holds its registration back, its heartbeats, and its reaction to a silent hub.
 */
interface Frame {
  id?: number | string;
  method?: string;
  params?: any;
}

class FakeHub {
  readonly wss: WebSocketServer;
  readonly connections: Array<{ ws: WebSocket; frames: Frame[] }> = [];
  /** Called with each frame; answers agent.register unless it returns false. */
  onFrame: (conn: { ws: WebSocket; frames: Frame[] }, frame: Frame) => boolean | void = () => {};
  #waiters: Array<() => void> = [];

  constructor(ready: () => void) {
    this.wss = new WebSocketServer({ host: "127.0.0.1", port: 0 }, ready);
    this.wss.on("connection", (ws) => {
      const conn = { ws, frames: [] as Frame[] };
      this.connections.push(conn);
      ws.on("message", (data) => {
        const frame = JSON.parse(String(data)) as Frame;
        conn.frames.push(frame);
        const handled = this.onFrame(conn, frame);
        if (frame.method === "agent.register" && handled !== false) FakeHub.register(conn.ws, frame);
        for (const w of this.#waiters.splice(0)) w();
      });
    });
  }

  /** Acks a task update as the real hub does once it is durable; resolves once the ack is on the wire. */
  static ack(ws: WebSocket, frame: Frame): Promise<void> {
    return new Promise((resolve) => ws.send(JSON.stringify({ jsonrpc: "2.0", id: frame.id, result: { ok: true } }), () => resolve()));
  }

  static register(ws: WebSocket, frame: Frame): void {
    ws.send(JSON.stringify({ jsonrpc: "2.0", id: frame.id, result: { registered: true, agent_id: frame.params.agent_name } }));
  }

  get url(): string {
    return `ws://127.0.0.1:${(this.wss.address() as AddressInfo).port}/hub`;
  }

  /** Resolves once `check` holds, re-checked on every frame. */
  async until(check: () => boolean): Promise<void> {
    while (!check()) await new Promise<void>((resolve) => this.#waiters.push(resolve));
  }

  close(): Promise<void> {
    for (const c of this.connections) c.ws.terminate();
    return new Promise((resolve) => this.wss.close(() => resolve()));
  }
}

let hub: FakeHub;
const agents: Agent[] = [];

beforeEach(async () => {
  const listening = deferred();
  hub = new FakeHub(() => listening.resolve());
  await listening.promise;
});

afterEach(async () => {
  await Promise.all(agents.splice(0).map((a) => a.close()));
  await hub.close();
});

function track(agent: Agent): Agent {
  agents.push(agent);
  return agent;
}

const taskFrames = (frames: Frame[]) => frames.filter((f) => f.method?.startsWith("task."));

describe("the link", () => {
  test("frames that could not be sent while disconnected are kept and sent once, in order, after re-registering", async () => {
    const gate = deferred();
    const handlerDone = deferred();
    const agent = track(connectAgent({ url: hub.url, name: "keeper", reconnect: { initialDelayMs: 1, maxDelayMs: 5 }, logger: memoryLogger() })).skill(
      { name: "s", description: "" },
      async function* () {
        try {
          yield "a";
          await gate.promise;
          yield "b";
        } finally {
          handlerDone.resolve();
        }
      },
    );
    await agent.ready;
    const first = hub.connections[0]!;
    first.ws.send(
      JSON.stringify({
        jsonrpc: "2.0",
        id: "x1",
        method: "task.execute",
        params: { id: "t1", sessionId: "s1", message: { role: "user", parts: [{ type: "text", text: "hi" }] } },
      }),
    );
    await hub.until(() => taskFrames(first.frames).length === 1);
    // Acked: durable at the hub, so not sent again.
    await FakeHub.ack(first.ws, taskFrames(first.frames)[0]!);

    // Hold the next registration back until the handler has finished while disconnected.
    hub.onFrame = (conn, frame) => (frame.method === "agent.register" && conn !== first ? false : undefined);
    const dropped = new Promise((resolve) => agent.on("disconnected", resolve));
    first.ws.terminate();
    await dropped;
    gate.resolve();
    await handlerDone.promise;
    await hub.until(() => hub.connections.length === 2 && hub.connections[1]!.frames.some((f) => f.method === "agent.register"));
    const second = hub.connections[1]!;
    expect(taskFrames(second.frames)).toEqual([]);
    const registered = new Promise((resolve) => agent.on("registered", resolve));
    FakeHub.register(second.ws, second.frames.find((f) => f.method === "agent.register")!);
    await registered;
    await hub.until(() => taskFrames(second.frames).length === 2);

    expect(taskFrames(first.frames).map((f) => [f.method, f.params.status.message.parts[0].text])).toEqual([["task.status", "a"]]);
    expect(taskFrames(second.frames).map((f) => [f.method, f.params.status.state, f.params.status.message.parts[0].text])).toEqual([
      ["task.status", "working", "b"],
      ["task.complete", "completed", "ab"],
    ]);
    expect(second.frames.find((f) => f.method === "task.complete")!.params).toMatchObject({ task_id: "t1", final: true });
  });

  test("an update the hub had not acked when the link dropped is sent again, with the same seq", async () => {
    const gate = deferred();
    const agent = track(connectAgent({ url: hub.url, name: "resender", reconnect: { initialDelayMs: 1, maxDelayMs: 5 }, logger: memoryLogger() })).skill(
      { name: "s", description: "" },
      async function* () {
        yield "a";
        await gate.promise;
        yield "b";
      },
    );
    await agent.ready;
    const first = hub.connections[0]!;
    first.ws.send(
      JSON.stringify({
        jsonrpc: "2.0",
        id: "x1",
        method: "task.execute",
        params: { id: "t2", sessionId: "s1", message: { role: "user", parts: [{ type: "text", text: "hi" }] } },
      }),
    );
    await hub.until(() => taskFrames(first.frames).length === 1);
    // Not acked: the hub may not have stored it.
    const again = new Promise((resolve) => agent.on("registered", resolve));
    first.ws.terminate();
    await again;
    const second = hub.connections[1]!;
    await hub.until(() => taskFrames(second.frames).length === 1);
    gate.resolve();
    await hub.until(() => taskFrames(second.frames).length === 3);
    const seen = (frames: Frame[]) => taskFrames(frames).map((f) => [f.method, f.params.seq, f.params.status.message?.parts[0].text]);
    expect(seen(first.frames)).toEqual([["task.status", 1, "a"]]);
    expect(seen(second.frames)).toEqual([
      ["task.status", 1, "a"],
      ["task.status", 2, "b"],
      ["task.complete", 3, "ab"],
    ]);
  });

  test("a task.execute sent again for the turn it is running (after a drop) is accepted, not run twice", async () => {
    const gate = deferred();
    let runs = 0;
    const agent = track(connectAgent({ url: hub.url, name: "once", logger: memoryLogger() })).skill({ name: "s", description: "" }, async () => {
      runs += 1;
      await gate.promise;
      return "done";
    });
    await agent.ready;
    const conn = hub.connections[0]!;
    const execute = (id: string) =>
      conn.ws.send(
        JSON.stringify({ jsonrpc: "2.0", id, method: "task.execute", params: { id: "t3", message: { role: "user", parts: [{ type: "text", text: "hi" }] } } }),
      );
    execute("e1");
    execute("e2");
    await hub.until(() => conn.frames.filter((f) => f.id === "e1" || f.id === "e2").length === 2);
    expect(conn.frames.filter((f) => f.id === "e1" || f.id === "e2").map((f) => (f as { result?: unknown }).result)).toEqual([
      { accepted: true },
      { accepted: true },
    ]);
    gate.resolve();
    await hub.until(() => taskFrames(conn.frames).length === 1);
    expect(runs).toBe(1);
    expect(taskFrames(conn.frames)[0]!.params).toMatchObject({ task_id: "t3", status: { state: "completed" } });
  });

  test("heartbeats flow while registered; a hub that stays silent for three periods is dropped and redialed", async () => {
    const agent = track(
      connectAgent({ url: hub.url, name: "beater", heartbeatMs: 20, reconnect: { initialDelayMs: 1, maxDelayMs: 5 }, logger: memoryLogger() }),
    );
    const disconnected = new Promise((resolve) => agent.on("disconnected", resolve));
    await agent.ready;
    // The fake hub never answers a heartbeat: the agent gives up on the link and dials again.
    await disconnected;
    await hub.until(() => hub.connections.length >= 2);
    // Three beats went unanswered before the agent gave up on the link.
    const beats = hub.connections[0]!.frames.filter((f) => f.method === "heartbeat");
    expect(beats.length).toBe(3);
    expect(beats[0]).toMatchObject({ jsonrpc: "2.0", params: {} });
  });

  test("the registration carries the name, token, skills, card and streaming flag", async () => {
    const agent = track(connectAgent({ url: hub.url, name: "describer", token: "t0k", card: { description: "d", version: "2" } }))
      .skill({ name: "plain", description: "returns" }, async () => "x")
      .skill({ name: "gen", description: "streams", id: "gen-id" }, async function* () {
        yield "x";
      });
    await agent.ready;
    const register = hub.connections[0]!.frames.find((f) => f.method === "agent.register")!;
    expect(register.params).toMatchObject({
      agent_name: "describer",
      auth_token: "t0k",
      streaming: true,
      skills: [
        { id: "plain", name: "plain", description: "returns" },
        { id: "gen-id", name: "gen", description: "streams" },
      ],
      card: { name: "describer", description: "d", version: "2", capabilities: { streaming: true } },
    });
  });

  test("a refused upgrade (HTTP 401) is fatal and says so", async () => {
    await hub.close();
    const { createServer } = await import("node:http");
    const server = createServer((_req, res) => res.end());
    server.on("upgrade", (_req, socket) => {
      socket.end("HTTP/1.1 401 Unauthorized\r\nContent-Type: text/plain\r\nContent-Length: 9\r\n\r\nbad token");
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    try {
      const port = (server.address() as AddressInfo).port;
      const agent = track(connectAgent({ url: `ws://127.0.0.1:${port}/hub`, name: "x", logger: memoryLogger() }));
      await expect(agent.ready).rejects.toThrow('hub refused agent "x": HTTP 401 bad token');
    } finally {
      await new Promise((resolve) => server.close(resolve));
      const listening = deferred();
      hub = new FakeHub(() => listening.resolve());
      await listening.promise;
    }
  });

  test("close() before registration rejects ready", async () => {
    hub.onFrame = () => false;
    const agent = connectAgent({ url: hub.url, name: "late", logger: memoryLogger() });
    await hub.until(() => hub.connections.length === 1 && hub.connections[0]!.frames.length === 1);
    await agent.close();
    await expect(agent.ready).rejects.toThrow('agent "late" was closed before it registered');
  });
});

describe("options", () => {
  test("bad options throw at once, naming the field", () => {
    expect(() => connectAgent({ url: "ftp://x", name: "a" })).toThrow(
      new AgentOptionsError("options.url", 'must be a ws(s):// URL (or http(s)://, dialed as ws(s)://), got "ftp://x"'),
    );
    expect(() => connectAgent({ url: "not a url", name: "a" })).toThrow("connectAgent: options.url is not a URL");
    expect(() => connectAgent({ url: "ws://h/hub", name: "" })).toThrow("connectAgent: options.name must be a non-empty string");
    expect(() => connectAgent({ url: "ws://h/hub", name: "a", concurrency: 0 })).toThrow("options.concurrency must be a positive");
    expect(() => connectAgent({ url: "ws://h/hub", name: "a", reconnect: { initialDelayMs: 100, maxDelayMs: 10 } })).toThrow(
      "options.reconnect.maxDelayMs must not be less than initialDelayMs",
    );
  });

  test("a name the hub would refuse throws at once, before any connection", () => {
    const before = hub.connections.length;
    for (const name of ["my agent", "-lead", ".hidden", "a/b", "é"]) {
      expect(() => connectAgent({ url: hub.url, name })).toThrow(
        new AgentOptionsError(
          "options.name",
          `must start with a letter or digit and hold only letters, digits, ".", "_" and "-" (^[A-Za-z0-9][A-Za-z0-9._-]*$), got ${JSON.stringify(name)}`,
        ),
      );
    }
    expect(() => connectAgent({ url: hub.url, name: "a".repeat(129) })).toThrow(
      new AgentOptionsError("options.name", "must be at most 128 characters, got 129"),
    );
    expect(hub.connections.length).toBe(before);
  });

  test("bad skills throw, naming the field", async () => {
    const agent = track(connectAgent({ url: hub.url, name: "skills", logger: memoryLogger() }));
    agent.skill({ name: "one", description: "" }, async () => "1");
    expect(() => agent.skill({ name: "one", description: "" }, async () => "1")).toThrow('skill.name "one" is already defined');
    expect(() => agent.skill({ name: "", description: "" }, async () => "")).toThrow("skill.name must be a non-empty string");
    expect(() => agent.skill({ name: "two", description: "" }, "nope" as never)).toThrow('handler of skill "two" must be a function');
    await agent.ready;
  });

  test("an http(s) URL is accepted for the hub and dialed as ws(s)", async () => {
    const agent = track(connectAgent({ url: hub.url.replace("ws:", "http:"), name: "httpish", logger: memoryLogger() }));
    await expect(agent.ready).resolves.toMatchObject({ agentId: "httpish", reconnected: false });
  });
});

describe("backoffDelay", () => {
  test("doubles from the initial delay, is capped, and jitters within the upper half of each step", () => {
    expect(backoffDelay(0, 100, 1000, () => 0)).toBe(50);
    expect(backoffDelay(0, 100, 1000, () => 1)).toBe(100);
    expect(backoffDelay(3, 100, 1000, () => 1)).toBe(800);
    expect(backoffDelay(4, 100, 1000, () => 1)).toBe(1000);
    expect(backoffDelay(50, 100, 1000, () => 0.5)).toBe(750);
    for (let attempt = 0; attempt < 10; attempt++) {
      const d = backoffDelay(attempt, 100, 1000);
      expect(d).toBeGreaterThanOrEqual(Math.min(1000, 100 * 2 ** attempt) / 2);
      expect(d).toBeLessThanOrEqual(Math.min(1000, 100 * 2 ** attempt));
    }
  });
});

describe("reconnect off", () => {
  test("without reconnect, a hub that cannot be reached rejects ready with the reason", async () => {
    const url = hub.url;
    await hub.close();
    const agent = connectAgent({ url, name: "once", reconnect: false, logger: memoryLogger() });
    await expect(agent.ready).rejects.toThrow(`hub link to ${url} closed: connect ECONNREFUSED`);
    const listening = deferred();
    hub = new FakeHub(() => listening.resolve());
    await listening.promise;
  });
});
