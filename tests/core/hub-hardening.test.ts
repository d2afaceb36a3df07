import { afterAll, afterEach, beforeAll, describe, expect, test } from "@jest/globals";
import WebSocket from "ws";
import { configFromEnv, resolveConfig } from "../../router/config/load.js";
import type { RunningRouter } from "../../router/index.js";
import { SchemaRegistry } from "../../router/schema/validator.js";
import { RPC_ERROR_CODES as C } from "../../router/rpc/errors.js";
import { openStream, rpc, statusText, userMessage } from "../helpers/rpc.js";
import { testRouter } from "../helpers/router.js";
import { spawnRouter } from "../helpers/spawn-router.js";
import { RawAgent, text } from "../helpers/ws-agent.js";

/** CONTRACT 12 from the hub's side: registration deadline, resume grace, prototype keys, origins. */

const agents: RawAgent[] = [];
function connect(router: RunningRouter, opts?: { token?: string }): RawAgent {
  const a = new RawAgent(router.url, opts);
  agents.push(a);
  return a;
}
afterEach(async () => {
  await Promise.all(agents.splice(0).map((a) => a.close()));
});

const JS_ERROR_TEXT = /is not a function|TypeError|ReferenceError|Unexpected token|at position|\bat .*\.(js|ts)\b/;

describe("registration deadline (hub.registerTimeoutMs)", () => {
  let router: RunningRouter;
  beforeAll(async () => {
    router = await testRouter({ config: { hub: { registerTimeoutMs: 300 } } });
  });
  afterAll(() => router.close());

  test("a socket that answers pings but never registers is closed with 1008; a registered one stays", async () => {
    const registered = connect(router);
    expect((await registered.register("on-time")).result.registered).toBe(true);
    // Opened after the registered one: its deadline passes after the registered one's would have.
    const idle = connect(router);
    await idle.open();
    const code = await new Promise<number>((resolve) => idle.ws.once("close", (c) => resolve(c)));
    expect(code).toBe(1008);
    expect(registered.ws.readyState).toBe(WebSocket.OPEN);
    expect((await registered.request("heartbeat", {})).result).toEqual({ ok: true });
  });
});

describe("resume grace (hub.resumeGraceMs)", () => {
  let router: RunningRouter;
  beforeAll(async () => {
    // Wide enough for a loaded machine; the tests below never wait it out except on purpose.
    router = await testRouter({ config: { hub: { resumeGraceMs: 10_000 } } });
  });
  afterAll(() => router.close());

  test("an agent that drops and registers again within the grace keeps its task; re-sent updates are not logged twice", async () => {
    const first = connect(router);
    await first.register("blinker");
    const exec = first.nextTask();
    const stream = await openStream(router.url, "tasks/sendSubscribe", { id: "bl-1", message: userMessage("x"), metadata: { agent: "blinker" } });
    await exec;
    expect((await first.request("task.status", { task_id: "bl-1", seq: 1, status: { state: "working", message: text("before ") } })).result).toEqual({
      ok: true,
    });
    first.ws.terminate();
    await first.closed;

    const second = connect(router);
    // The first agent never answered task.execute: the hub sends it again to the agent that comes back.
    const reexecuted = second.nextTask();
    // The hub may not have seen the drop yet: "already connected" until it has.
    let reg = await second.register("blinker");
    while (reg.error) {
      await new Promise((r) => setImmediate(r));
      reg = await second.request("agent.register", { agent_name: "blinker" });
    }
    expect((await reexecuted).params).toMatchObject({ id: "bl-1", message: userMessage("x") });
    // seq 1 again: the copy the agent could not know was stored.
    expect((await second.request("task.status", { task_id: "bl-1", seq: 1, status: { state: "working", message: text("before ") } })).result).toEqual({
      ok: true,
    });
    expect((await second.request("task.status", { task_id: "bl-1", seq: 2, status: { state: "working", message: text("after") } })).result).toEqual({
      ok: true,
    });
    expect((await second.request("task.complete", { task_id: "bl-1", seq: 3, status: { state: "completed", message: text("before after") } })).result).toEqual({
      ok: true,
    });
    const events = await stream.all();
    expect(events.map((e) => [e.data.result.status.state, statusText(e)])).toEqual([
      ["working", "before "],
      ["working", "after"],
      ["completed", "before after"],
    ]);
  });

  test("a cancel that came while the agent was away reaches it when it is back", async () => {
    const first = connect(router);
    await first.register("away");
    const exec = first.nextTask();
    const stream = await openStream(router.url, "tasks/sendSubscribe", { id: "aw-1", message: userMessage("x"), metadata: { agent: "away" } });
    await exec;
    first.ws.terminate();
    await first.closed;
    expect((await rpc(router.url, "tasks/cancel", { id: "aw-1" })).result.status.state).toBe("canceled");
    expect((await stream.all()).at(-1)!.data.result).toMatchObject({ final: true, status: { state: "canceled" } });
    const second = connect(router);
    const cancel = second.nextFrame((f) => f.method === "task.cancel");
    let reg = await second.register("away");
    while (reg.error) {
      await new Promise((r) => setImmediate(r));
      reg = await second.request("agent.register", { agent_name: "away" });
    }
    expect((await cancel).params).toEqual({ task_id: "aw-1" });
  });

  test("an agent that closes the connection itself is not waited for: its tasks fail at once", async () => {
    const a = connect(router);
    await a.register("leaver");
    const exec = a.nextTask();
    const sent = rpc(router.url, "tasks/send", { id: "lv-1", message: userMessage("x"), metadata: { agent: "leaver" } });
    await exec;
    a.ws.close(1000, "bye");
    const r = (await sent).result;
    expect(r.status.state).toBe("failed");
    expect(r.status.message.parts[0].text).toBe("Agent leaver disconnected while the task was in flight: it closed the connection: bye.");
  });
});

describe("past the grace", () => {
  let router: RunningRouter;
  beforeAll(async () => {
    router = await testRouter({ config: { hub: { resumeGraceMs: 100 } } });
  });
  afterAll(() => router.close());

  test("a dropped agent that does not come back: its task fails with a message saying so", async () => {
    const a = connect(router);
    await a.register("gone");
    const exec = a.nextTask();
    const sent = rpc(router.url, "tasks/send", { id: "gn-1", message: userMessage("x"), metadata: { agent: "gone" } });
    await exec;
    a.ws.terminate();
    const r = (await sent).result;
    expect(r.status.state).toBe("failed");
    expect(r.status.message.parts[0].text).toMatch(/^Agent gone disconnected while the task was in flight: the connection was lost/);
  });
});

describe("method names and tokens that are Object.prototype keys", () => {
  let router: RunningRouter;
  beforeAll(async () => {
    router = await testRouter({ config: { hub: { tokens: { "tok-real": "real" }, allowAnonymous: true } } });
  });
  afterAll(() => router.close());

  const keys = ["constructor", "__proto__", "toString", "hasOwnProperty", "valueOf", "isPrototypeOf", "__defineGetter__", "propertyIsEnumerable"];

  test.each([false, true])("each is method not found, never a JavaScript error (registered: %s)", async (registered) => {
    const a = connect(router);
    if (registered) await a.register(`proto-${keys.length}`);
    else await a.open();
    for (const method of keys) {
      const r = await a.request(method, {});
      expect(r.error).toEqual({ code: C.METHOD_NOT_FOUND, message: `Method not found: ${method}`, data: { method } });
    }
  });

  test("as a token it is an invalid token; as a name it registers like any other", async () => {
    for (const token of ["constructor", "__proto__", "toString"]) {
      const a = connect(router);
      const r = await a.register("real", { auth_token: token });
      expect(r.error.message).toBe("Invalid params: invalid token");
    }
    const named = connect(router);
    expect((await named.register("constructor")).result).toEqual({ registered: true, agent_id: "constructor" });
  });

  test("no refusal carries JavaScript error text: parse errors, bad params, updates for unknown tasks", async () => {
    const a = connect(router);
    await a.register("plain-errors");
    const parse = a.nextFrame((f) => f.error?.code === C.PARSE_ERROR);
    a.ws.send("{oops");
    const messages = [(await parse).error.message];
    for (const [method, params] of [
      ["task.status", { task_id: "nope", status: { state: "working" } }],
      ["task.status", "not an object"],
      ["task.artifact", { task_id: "nope", artifact: { parts: "x" } }],
      ["task.complete", { task_id: "nope", status: { state: "completed" } }],
      ["agent.register", null],
      ["heartbeat", null],
    ] as const) {
      const r = await a.request(method, params);
      if (r.error) messages.push(r.error.message);
    }
    expect(messages.length).toBeGreaterThanOrEqual(6);
    for (const m of messages) expect(m).not.toMatch(JS_ERROR_TEXT);
    expect(messages[0]).toBe("Parse error: the frame is not valid JSON");
  });
});

describe("Origin check on the /hub upgrade", () => {
  let router: RunningRouter;
  beforeAll(async () => {
    router = await testRouter({ config: { hub: { allowedOrigins: ["https://agents.example.com"] }, cors: { origins: ["https://app.example.com"] } } });
  });
  afterAll(() => router.close());

  /** The upgrade's outcome: "open", or the HTTP status it was refused with. */
  function upgrade(origin: string | undefined): Promise<"open" | number> {
    const ws = new WebSocket(router.url.replace(/^http/, "ws") + "/hub", origin === undefined ? {} : { origin });
    return new Promise((resolve) => {
      ws.once("open", () => {
        ws.close();
        resolve("open");
      });
      ws.once("unexpected-response", (_req, res) => {
        resolve(res.statusCode ?? 0);
        res.resume();
        ws.terminate();
      });
      ws.once("error", () => undefined);
    });
  }

  test("a foreign origin is refused with 403", async () => {
    expect(await upgrade("https://evil.example")).toBe(403);
    expect(await upgrade("null")).toBe(403);
    expect(await upgrade("https://app.example.com.evil.example")).toBe(403);
  });

  test("no Origin (agents), the router's own origin, hub.allowedOrigins and cors.origins are accepted", async () => {
    expect(await upgrade(undefined)).toBe("open");
    expect(await upgrade(router.url)).toBe("open");
    expect(await upgrade("https://agents.example.com")).toBe("open");
    expect(await upgrade("https://app.example.com")).toBe("open");
  });
});

describe("prototype keys on the JSON-RPC endpoint", () => {
  let router: RunningRouter;
  beforeAll(async () => {
    router = await testRouter({ eliza: false });
  });
  afterAll(() => router.close());

  test("an envelope with its own hasOwnProperty member, or a method named after a prototype key, gets a JSON-RPC answer", async () => {
    const post = async (body: unknown) => {
      const res = await fetch(router.url + "/rpc", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
      return { status: res.status, body: (await res.json()) as { error?: { code: number; message: string } } };
    };
    const shadowed = await post({ jsonrpc: "2.0", id: 1, method: "tasks/get", hasOwnProperty: 1, params: { id: "nope" } });
    expect(shadowed).toEqual({
      status: 200,
      body: { jsonrpc: "2.0", id: 1, error: { code: C.TASK_NOT_FOUND, message: "Task not found: nope", data: { taskId: "nope" } } },
    });
    for (const method of ["constructor", "__proto__", "toString"]) {
      const r = await post({ jsonrpc: "2.0", id: 1, method, params: {} });
      expect(r.body.error).toMatchObject({ code: C.METHOD_NOT_FOUND, message: `Method not found: ${method}` });
    }
  });
});

describe("hub config keys", () => {
  const schemas = new SchemaRegistry();

  test("defaults, file and env: registerTimeoutMs, resumeGraceMs, allowedOrigins", () => {
    expect(resolveConfig(schemas, {}).hub).toMatchObject({ registerTimeoutMs: 10_000, resumeGraceMs: 2000, allowedOrigins: [] });
    const config = resolveConfig(schemas, {
      file: { hub: { registerTimeoutMs: 500, resumeGraceMs: 0, allowedOrigins: ["https://a.example"] } },
      env: configFromEnv({ HUB_RESUME_GRACE_MS: "750", HUB_ALLOWED_ORIGINS: "https://b.example, http://localhost:5173" }),
    });
    expect(config.hub).toMatchObject({ registerTimeoutMs: 500, resumeGraceMs: 750, allowedOrigins: ["https://b.example", "http://localhost:5173"] });
  });

  test("bad values are one clear line naming the key", () => {
    expect(() => resolveConfig(schemas, { file: { hub: { registerTimeoutMs: 0 } } })).toThrow(/hub\.registerTimeoutMs/);
    expect(() => resolveConfig(schemas, { file: { hub: { resumeGraceMs: -1 } } })).toThrow(/hub\.resumeGraceMs/);
    expect(() => resolveConfig(schemas, { file: { hub: { allowedOrigins: ["https://a.example/path"] } } })).toThrow(
      'Invalid config: hub.allowedOrigins entry "https://a.example/path" must be an origin like https://app.example.com',
    );
  });
});

describe("answers in order (a real router process)", () => {
  test("a refusal that waits behind an ack not yet durable is sent in its turn, and the router lives on", async () => {
    const router = await spawnRouter(["--store", "memory"]);
    const agent = new RawAgent(router.url);
    try {
      await agent.register("in-order");
      const executing = agent.nextTask();
      const sent = rpc(router.url, "tasks/send", { id: "in-order-1", message: userMessage("go"), metadata: { agent: "in-order" } });
      const taskId = (await executing).params.id as string;
      // Sent together: the first is acked once stored (a later turn of the event loop), the second is refused
      // at once, and its answer waits behind the first's. A refusal left unhandled meanwhile ended the process.
      const [stored, refused] = agent.inOneWrite(() => [
        agent.request("task.status", { task_id: taskId, status: { state: "working", message: text("half") } }),
        agent.request("task.status", { task_id: "nobody", status: { state: "working" } }),
      ]);
      const died = router.exited.then((code) => Promise.reject(new Error(`the router exited (${code}):\n${router.output()}`)));
      expect((await Promise.race([stored, died])).result).toEqual({ ok: true });
      expect((await Promise.race([refused, died])).error).toMatchObject({ code: C.INVALID_PARAMS });
      const order = (id: unknown) => agent.frames.findIndex((f) => f.id === id);
      expect(order((await stored).id)).toBeLessThan(order((await refused).id));
      agent.notify("task.complete", { task_id: taskId, status: { state: "completed", message: text("done") } });
      expect((await sent).result.status.state).toBe("completed");
      expect(router.child.exitCode).toBeNull();
    } finally {
      await agent.close();
      await router.kill();
    }
  });
});
