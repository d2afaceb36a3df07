import { spawn } from "node:child_process";
import { createServer, type Server, type Socket } from "node:net";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, test } from "@jest/globals";
import { WebSocketServer } from "ws";
import { connectAgent, type Agent } from "../../agents/sdk/index.js";
import { startRouter, type RunningRouter } from "../../router/index.js";
import { ensureBuilt, ROOT } from "../cli/build.js";
import { deferred, memoryLogger, nextRegistration, rpc, sendParams, stream, text } from "./helpers.js";

/** CONTRACT 11 and 12 from the agent's side: a killed agent, a blip inside the grace, several hubs. */

const agents: Agent[] = [];
function track(agent: Agent): Agent {
  agents.push(agent);
  return agent;
}
afterEach(async () => {
  await Promise.all(agents.splice(0).map((a) => a.close()));
});

const quiet = () => memoryLogger();
const hubOf = (router: RunningRouter) => `${router.url.replace(/^http/, "ws")}/hub`;

/** A TCP relay in front of the router whose connections the test can cut, and which it can shut. */
class Relay {
  readonly server: Server;
  #sockets = new Set<Socket>();
  #refusing = false;

  constructor(target: number, ready: () => void) {
    this.server = createServer((client) => {
      if (this.#refusing) return void client.destroy();
      const upstream = new (client.constructor as typeof Socket)();
      upstream.connect(target, "127.0.0.1");
      for (const s of [client, upstream]) {
        this.#sockets.add(s);
        s.on("close", () => this.#sockets.delete(s));
        s.on("error", () => undefined);
      }
      client.pipe(upstream).pipe(client);
    });
    this.server.listen(0, "127.0.0.1", ready);
  }

  get url(): string {
    return `ws://127.0.0.1:${(this.server.address() as AddressInfo).port}/hub`;
  }

  /** Cuts every relayed connection without a close frame, and refuses new ones until `resume()`. */
  cut(): void {
    this.#refusing = true;
    for (const s of this.#sockets) s.destroy();
  }

  resume(): void {
    this.#refusing = false;
  }

  close(): Promise<void> {
    this.cut();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

describe("drops", () => {
  let router: RunningRouter;
  beforeAll(async () => {
    await ensureBuilt();
    // Default hub settings: the resume grace is 2000 ms, well inside the 5 s the contract allows.
    router = await startRouter({ port: 0, store: "memory" });
  }, 300_000);
  afterAll(() => router.close());

  test("an agent process killed without a close frame: its task ends failed within 5 s", async () => {
    const child = spawn(process.execPath, [join(ROOT, "tests", "sdk", "fixtures", "stuck-agent.mjs")], {
      cwd: ROOT,
      env: { ...process.env, A2A_HUB_URL: hubOf(router), AGENT_NAME: "doomed" },
      stdio: ["ignore", "ignore", "pipe"],
    });
    const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
    try {
      let stderr = "";
      await new Promise<void>((resolve, reject) => {
        child.stderr!.setEncoding("utf8").on("data", (d: string) => {
          stderr += d;
          if (stderr.includes("registered")) resolve();
        });
        child.once("exit", () => reject(new Error(`agent exited: ${stderr}`)));
      });
      const started = deferred();
      const streamed = stream(router.url, "tasks/sendSubscribe", sendParams("doomed", "go"), () => started.resolve());
      await started.promise;
      child.kill("SIGKILL");
      const killedAt = Date.now();
      const events = await streamed;
      expect(Date.now() - killedAt).toBeLessThan(5000);
      expect(events.map(text)[0]).toBe("started");
      expect(events.at(-1)!.result).toMatchObject({ final: true, status: { state: "failed" } });
      expect(text(events.at(-1)!)).toMatch(/^Agent doomed disconnected while the task was in flight: the connection was lost/);
    } finally {
      child.kill("SIGKILL");
      await exited;
    }
  });

  test("a blip inside the grace: the agent re-sends what it could not send, and the task completes", async () => {
    const relayUp = deferred();
    const relay = new Relay(router.port, () => relayUp.resolve());
    await relayUp.promise;
    const gate = deferred();
    const keptWhileAway = deferred();
    const agent = track(connectAgent({ url: relay.url, name: "blinky", reconnect: { initialDelayMs: 10, maxDelayMs: 50 }, logger: quiet() }));
    agent.skill({ name: "s", description: "" }, async function* () {
      yield "before ";
      await gate.promise;
      yield "during ";
      keptWhileAway.resolve();
      yield "after";
    });
    try {
      await agent.ready;
      const started = deferred();
      const streamed = stream(router.url, "tasks/sendSubscribe", sendParams("blinky", "go"), () => started.resolve());
      await started.promise;
      const dropped = new Promise((resolve) => agent.on("disconnected", resolve));
      relay.cut();
      await dropped;
      gate.resolve();
      // The handler went on while the link was down: its updates were kept.
      await keptWhileAway.promise;
      const back = nextRegistration(agent);
      relay.resume();
      expect(await back).toMatchObject({ agentId: "blinky", reconnected: true });
      const events = await streamed;
      expect(events.map((e) => [e.result.status?.state, text(e)])).toEqual([
        ["working", "before "],
        ["working", "during "],
        ["working", "after"],
        ["completed", "before during after"],
      ]);
      expect(events.map((e) => e.seq)).toEqual([1, 2, 3, 4]);
    } finally {
      await agent.close();
      await relay.close();
    }
  });
});

describe("several hubs (url array)", () => {
  let a: RunningRouter;
  let b: RunningRouter;
  beforeAll(async () => {
    [a, b] = await Promise.all([startRouter({ port: 0, store: "memory" }), startRouter({ port: 0, store: "memory" })]);
  });
  afterAll(async () => {
    await Promise.all([a.close(), b.close()]);
  });

  test("a hub that cannot be reached is skipped for the next one", async () => {
    const dead = await new Promise<string>((resolve) => {
      const s = createServer().listen(0, "127.0.0.1", () => {
        const port = (s.address() as AddressInfo).port;
        s.close(() => resolve(`ws://127.0.0.1:${port}/hub`));
      });
    });
    const agent = track(connectAgent({ url: [dead, hubOf(b)], name: "wanderer", reconnect: { initialDelayMs: 10, maxDelayMs: 50 }, logger: quiet() }));
    agent.skill({ name: "s", description: "" }, async () => "from b");
    await agent.ready;
    const task = await rpc(b.url, "tasks/send", sendParams("wanderer", "x"));
    expect(task.status.message.parts[0].text).toBe("from b");
  });

  test("after a drop, the agent moves on to the next hub in turn", async () => {
    const c = await startRouter({ port: 0, store: "memory" });
    const agent = track(connectAgent({ url: [hubOf(c), hubOf(b)], name: "mover", reconnect: { initialDelayMs: 10, maxDelayMs: 50 }, logger: quiet() }));
    agent.skill({ name: "s", description: "" }, async () => "moved");
    await agent.ready;
    expect((await rpc(c.url, "tasks/send", sendParams("mover", "x"))).status.state).toBe("completed");
    const again = nextRegistration(agent);
    await c.close();
    expect(await again).toMatchObject({ agentId: "mover", reconnected: true });
    expect((await rpc(b.url, "tasks/send", sendParams("mover", "x"))).status.message.parts[0].text).toBe("moved");
  });

  test("bad url arrays throw at once, naming the entry", () => {
    expect(() => connectAgent({ url: [], name: "x" })).toThrow("connectAgent: options.url must list at least one hub URL");
    expect(() => connectAgent({ url: ["ws://127.0.0.1:1/hub", "ftp://x"], name: "x" })).toThrow(/options\.url\[1\] must be a ws\(s\):\/\/ URL/);
  });
});

describe("registration deadline, agent side", () => {
  test("a hub that never answers agent.register is redialed after registerTimeoutMs", async () => {
    const listening = deferred();
    const wss = new WebSocketServer({ host: "127.0.0.1", port: 0 }, () => listening.resolve());
    await listening.promise;
    let registers = 0;
    const secondTry = deferred();
    wss.on("connection", (ws) => {
      ws.on("message", (data) => {
        const frame = JSON.parse(String(data));
        if (frame.method !== "agent.register") return;
        registers += 1;
        // Silent the first time; the redial is answered.
        if (registers === 1) return;
        ws.send(JSON.stringify({ jsonrpc: "2.0", id: frame.id, result: { registered: true, agent_id: frame.params.agent_name } }));
        secondTry.resolve();
      });
    });
    try {
      const logger = memoryLogger();
      const port = (wss.address() as AddressInfo).port;
      const agent = track(
        connectAgent({ url: `ws://127.0.0.1:${port}/hub`, name: "patient", registerTimeoutMs: 100, reconnect: { initialDelayMs: 10, maxDelayMs: 50 }, logger }),
      );
      await secondTry.promise;
      expect(await agent.ready).toMatchObject({ agentId: "patient", reconnected: false });
      expect(registers).toBe(2);
      expect(logger.lines).toContain("warn: no answer to agent.register within 100 ms; reconnecting");
    } finally {
      for (const c of wss.clients) c.terminate();
      await new Promise((r) => wss.close(() => r(undefined)));
    }
  });

  test("registerTimeoutMs must be a positive number", () => {
    expect(() => connectAgent({ url: "ws://127.0.0.1:1/hub", name: "x", registerTimeoutMs: 0 })).toThrow(
      /options\.registerTimeoutMs must be a positive number/,
    );
  });
});
