/**
 * The elizaOS plugin surface beyond actions and providers (CONTRACT 13): services (`Service`, static
 * `start`, `getService`, stopped at close), events (what is emitted when, handler failures contained), routes
 * (mounted under /api/plugins/{plugin}/ on the router's port, behind its API keys), the elizaOS-shaped `logger`.
 */
import { describe, expect, test } from "@jest/globals";
import { randomUUID } from "node:crypto";
import { Writable } from "node:stream";
import { pino } from "pino";
import {
  createElizaAgent,
  ElizaStartupError,
  EventType,
  logger,
  Service,
  type EventPayload,
  type IAgentRuntime,
  type Plugin,
} from "../../agents/eliza/index.js";
import { MemoryStore } from "../../router/store/memory-store.js";
import { testRouter } from "../helpers/router.js";
import { collect, statusesOf, textOfStatus, turnContext } from "./helpers.js";

/** A service that records its life in `log`. */
function recordingService(type: string, log: string[], failStart = false): typeof Service {
  return class extends Service {
    static override serviceType = type;
    override capabilityDescription = `records ${type}`;
    static override async start(runtime: IAgentRuntime): Promise<Service> {
      if (failStart) throw new Error(`${type} cannot start`);
      log.push(`start ${type} ${runtime.character.name}`);
      return new this(runtime);
    }
    async stop(): Promise<void> {
      log.push(`stop ${type}`);
    }
  };
}

const wave: Plugin["actions"] = [
  {
    name: "WAVE",
    description: "Waves",
    validate: async () => true,
    handler: async (_runtime, _message, _state, _options, callback) => {
      await callback?.({ text: "👋" });
      return { success: true, text: "waved" };
    },
  },
];

describe("services", () => {
  test("started at load with static start, found with getService, stopped (last first) at close", async () => {
    const log: string[] = [];
    const plugin: Plugin = { name: "svc", services: [recordingService("alpha", log), recordingService("beta", log)] };
    const agent = await createElizaAgent({ store: new MemoryStore(), env: {}, character: { name: "S" }, plugins: [plugin] });
    expect(log).toEqual(["start alpha S", "start beta S"]);
    const alpha = agent.runtime.getService("alpha");
    expect(alpha).toBeInstanceOf(Service);
    expect(alpha?.capabilityDescription).toBe("records alpha");
    expect(agent.runtime.hasService("beta")).toBe(true);
    expect(agent.runtime.getService("missing")).toBeNull();
    expect(agent.runtime.getServicesByType("alpha")).toHaveLength(1);
    await agent.close();
    await agent.close(); // twice is fine
    expect(log.slice(2)).toEqual(["stop beta", "stop alpha"]);
    expect(agent.runtime.getService("alpha")).toBeNull();
  });

  test("a service that fails to start refuses the agent in one line, and the started ones are stopped", async () => {
    const log: string[] = [];
    const plugin: Plugin = { name: "svc", services: [recordingService("ok", log), recordingService("bad", log, true)] };
    const err = await createElizaAgent({ store: new MemoryStore(), env: {}, plugins: [plugin] }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ElizaStartupError);
    expect((err as Error).message).toBe("plugin svc: service bad failed to start: bad cannot start");
    expect(log).toEqual(["start ok Eliza", "stop ok"]);
  });

  test.each([
    [{ name: "p", services: [{}] }, /^plugin p: services\[0\] must be a Service class \(with a static start\)$/],
    [
      {
        name: "p",
        services: [
          class NoType extends Service {
            capabilityDescription = "";
            async stop() {}
          },
        ],
      },
      /services\[0\] \(NoType\) has no static serviceType$/,
    ],
    [
      { name: "p", routes: [{ type: "HEAD", path: "/x", handler: async () => {} }] },
      /routes\[0\] "type" must be one of GET, POST, PUT, PATCH, DELETE, STATIC$/,
    ],
    [{ name: "p", routes: [{ type: "GET", path: "/x" }] }, /routes\[0\] \(GET \/x\) has no "handler" function$/],
    [{ name: "p", events: { MESSAGE_RECEIVED: () => {} } }, /events\.MESSAGE_RECEIVED must be an array of functions$/],
  ])("a bad plugin shape is refused: %#", async (plugin, expected) => {
    const err = await createElizaAgent({ store: new MemoryStore(), env: {}, plugins: [plugin as unknown as Plugin] }).catch((e: unknown) => e);
    expect((err as Error).message).toMatch(expected);
  });
});

describe("events", () => {
  test("a turn with an action emits, in order: received, run, model, actions, run ended, sent", async () => {
    const seen: Array<[string, EventPayload]> = [];
    const events = Object.fromEntries(Object.values(EventType).map((name) => [name, [(params: EventPayload) => void seen.push([name, params])]]));
    const agent = await createElizaAgent({ store: new MemoryStore(), env: {}, character: { name: "E" }, plugins: [{ name: "rec", actions: wave, events }] });
    const contextId = randomUUID();
    const updates = await collect(agent.execute(turnContext("wave please", contextId)));
    expect(textOfStatus(statusesOf(updates).at(-1)!)).toBe("On it.\n\n👋");
    expect(seen.map(([name]) => name)).toEqual([
      "MESSAGE_RECEIVED",
      "RUN_STARTED",
      "MODEL_USED",
      "ACTION_STARTED",
      "ACTION_COMPLETED",
      "ACTION_STARTED",
      "ACTION_COMPLETED",
      "RUN_ENDED",
      "MESSAGE_SENT",
    ]);
    const payload = (name: string, n = 0) => seen.filter(([e]) => e === name)[n][1];
    expect(payload("MESSAGE_RECEIVED")).toMatchObject({ runtime: agent.runtime, message: { roomId: contextId, content: { text: "wave please" } } });
    expect(payload("RUN_STARTED")).toMatchObject({ roomId: contextId, status: "started" });
    expect(payload("RUN_ENDED")).toMatchObject({ roomId: contextId, status: "completed", runId: payload("RUN_STARTED").runId });
    expect(payload("ACTION_COMPLETED", 1)).toMatchObject({ roomId: contextId, content: { actions: ["WAVE"], actionStatus: "completed", text: "waved" } });
    expect(payload("MESSAGE_SENT")).toMatchObject({ message: { roomId: contextId, content: { text: "👋" } } });
  });

  test("a handler that throws is logged and the turn goes on; registerEvent and emitEvent work for plugins too", async () => {
    const lines: string[] = [];
    const sink = new Writable({
      write: (chunk, _enc, done) => {
        lines.push(String(chunk));
        done();
      },
    });
    const agent = await createElizaAgent({
      store: new MemoryStore(),
      env: {},
      logger: pino({ level: "warn" }, sink),
      plugins: [{ name: "boom", events: { MESSAGE_RECEIVED: [async () => Promise.reject(new Error("handler broke"))] } }],
    });
    const updates = await collect(agent.execute(turnContext("hello", randomUUID())));
    expect(statusesOf(updates).at(-1)!.status.state).toBe("completed");
    expect(lines.some((l) => l.includes("event handler failed") && l.includes("handler broke"))).toBe(true);

    const got: unknown[] = [];
    agent.runtime.registerEvent("CUSTOM", (params) => void got.push(params.value));
    await agent.runtime.emitEvent(["CUSTOM", "NOBODY_LISTENS"], { value: 42 });
    expect(got).toEqual([42]);
  });
});

describe("routes", () => {
  const plugin: Plugin = {
    name: "@acme/plugin-x",
    routes: [
      { type: "GET", path: "/items/:id", handler: async (req, res, runtime) => void res.json({ id: req.params?.id, agent: runtime.character.name }) },
      { type: "POST", path: "echo", handler: async (req, res) => void res.status(201).json({ got: req.body }) },
      { type: "GET", path: "/broken", handler: async () => Promise.reject(new Error("route broke")) },
      { type: "STATIC", path: "/files", filePath: "/nowhere" },
    ],
  };

  test("mounted under /api/plugins/{name}/ with params, JSON bodies and the runtime; a throwing handler answers 500 JSON", async () => {
    const agent = await createElizaAgent({ store: new MemoryStore(), env: {}, character: { name: "R" }, plugins: [plugin] });
    expect(agent.httpRoutes().map((r) => `${r.method} ${r.path}`)).toEqual([
      "GET /api/plugins/@acme/plugin-x/items/:id",
      "POST /api/plugins/@acme/plugin-x/echo",
      "GET /api/plugins/@acme/plugin-x/broken",
    ]);
    const router = await testRouter({ eliza: false, hostedAgents: [agent], routes: agent.httpRoutes() });
    try {
      const base = `${router.url}/api/plugins/@acme/plugin-x`;
      expect(await (await fetch(`${base}/items/7`)).json()).toEqual({ id: "7", agent: "R" });
      const posted = await fetch(`${base}/echo`, { method: "POST", headers: { "content-type": "application/json" }, body: '{"a":1}' });
      expect([posted.status, await posted.json()]).toEqual([201, { got: { a: 1 } }]);
      const broken = await fetch(`${base}/broken`);
      expect([broken.status, await broken.json()]).toEqual([500, { error: "route broke" }]);
    } finally {
      await router.close();
      await agent.close();
    }
  });

  test("plugin routes sit behind the router's API keys", async () => {
    const agent = await createElizaAgent({ store: new MemoryStore(), env: {}, plugins: [plugin] });
    const guarded = await testRouter({ config: { apiKeys: ["k1"] }, eliza: false, hostedAgents: [agent], routes: agent.httpRoutes() });
    try {
      const url = `${guarded.url}/api/plugins/@acme/plugin-x/items/1`;
      expect((await fetch(url)).status).toBe(401);
      expect((await fetch(url, { headers: { authorization: "Bearer k1" } })).status).toBe(200);
    } finally {
      await guarded.close();
      await agent.close();
    }
  });
});

describe("logger", () => {
  test("elizaOS call styles reach the backing pino logger", async () => {
    const lines: Array<Record<string, unknown>> = [];
    const sink = new Writable({
      write: (chunk, _enc, done) => {
        lines.push(JSON.parse(String(chunk)));
        done();
      },
    });
    await createElizaAgent({ store: new MemoryStore(), env: {}, logger: pino({ level: "debug" }, sink) });
    lines.length = 0; // the agent's own start-up line
    logger.info("plain");
    logger.warn({ key: "v" }, "with fields");
    logger.error("Error in X:", new Error("boom"));
    logger.debug(["a", "b"]);
    logger.success("done");
    logger.trace("below the level");
    expect(lines.map((l) => [l.level, l.msg])).toEqual([
      [30, "plain"],
      [40, "with fields"],
      [50, "Error in X: boom"],
      [20, "[ 'a', 'b' ]"],
      [30, "done"],
    ]);
    expect(lines[1].key).toBe("v");
    expect((lines[2].err as { message: string }).message).toBe("boom");
  });
});
