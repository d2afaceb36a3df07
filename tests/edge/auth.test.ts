import { afterAll, beforeAll, describe, expect, test } from "@jest/globals";
import express from "express";
import type { AddressInfo } from "node:net";
import type { RunningRouter } from "../../router/index.js";
import { AuthFailureLimiter } from "../../router/http/auth-limiter.js";
import { apiKeyGuard, callerOf, KeyRing } from "../../router/http/auth.js";
import { AgentRegistry } from "../../router/agents/registry.js";
import { createApp } from "../../router/http/app.js";
import { RouterMetrics } from "../../router/observability/metrics.js";
import { silentLogger } from "../../router/observability/logger.js";
import type { CallContext, Dispatcher } from "../../router/rpc/dispatcher.js";
import { testRouter } from "../helpers/router.js";
import { raw, rpcBody } from "./helpers.js";

/** API keys (CONTRACT 12): hashed principals, agent limits, the auth-failure limit, /metrics and /healthz. */

describe("KeyRing", () => {
  const ring = new KeyRing(["plain-key", { key: "named-key", name: "team-a", agents: ["echo"] }, { key: "rotated", name: "team-a" }]);

  test("a string key is a principal named by a short hash of the key, never the key", () => {
    const caller = ring.identify("plain-key")!;
    expect(caller.principal).toMatch(/^key-[0-9a-f]{12}$/);
    expect(caller.principal).not.toContain("plain-key");
    expect(caller.agents).toBeUndefined();
    expect(ring.identify("plain-key")!.principal).toBe(caller.principal); // stable
  });

  test("an object key is its name with its agents; two keys of one name are one principal", () => {
    expect(ring.identify("named-key")).toEqual({ principal: "team-a", agents: ["echo"] });
    expect(ring.identify("rotated")!.principal).toBe("team-a");
  });

  test("unknown, empty, prefix and longer keys match nothing", () => {
    for (const k of ["nope", "", "plain", "plain-key ", "plain-keyx", "PLAIN-KEY"]) expect(ring.identify(k)).toBeUndefined();
  });
});

describe("AuthFailureLimiter", () => {
  test("counts failures per address over a sliding minute", () => {
    let now = 1_000_000;
    const limiter = new AuthFailureLimiter({ perMinute: 3, now: () => now });
    for (let i = 0; i < 3; i++) {
      expect(limiter.retryAfterSeconds("a")).toBe(0);
      limiter.fail("a");
      now += 1000;
    }
    expect(limiter.retryAfterSeconds("a")).toBe(57); // the first failure leaves the window 57 s from now
    expect(limiter.retryAfterSeconds("b")).toBe(0);
    now += 57_000;
    expect(limiter.retryAfterSeconds("a")).toBe(0);
  });

  test("memory is bounded: the least recently failing addresses are forgotten", () => {
    const limiter = new AuthFailureLimiter({ perMinute: 2, maxAddresses: 100 });
    for (let i = 0; i < 1000; i++) limiter.fail(`10.0.${i >> 8}.${i & 255}`);
    expect(limiter.size).toBe(100);
  });
});

describe("the guard attaches the caller", () => {
  let url: string;
  let close: () => void;
  beforeAll(async () => {
    const app = express();
    app.get("/who", apiKeyGuard([{ key: "k1", name: "alice", agents: ["echo"] }, "k2"]), (_req, res) => void res.json(callerOf(res) ?? null));
    app.get("/open", apiKeyGuard([]), (_req, res) => void res.json(callerOf(res) ?? null));
    app.get("/v1/models", apiKeyGuard(["k1"]), (_req, res) => void res.json({ data: [] }));
    const server = app.listen(0, "127.0.0.1");
    await new Promise((r) => server.once("listening", r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    close = () => server.close();
  });
  afterAll(() => close());

  test("Bearer and X-API-Key both identify the caller", async () => {
    expect((await raw(url, { path: "/who", headers: { authorization: "Bearer k1" } })).json()).toEqual({ principal: "alice", agents: ["echo"] });
    expect((await raw(url, { path: "/who", headers: { "x-api-key": "k2" } })).json().principal).toMatch(/^key-/);
  });

  test("on the OpenAI face (/v1) a refusal has OpenAI's error shape", async () => {
    const r = await raw(url, { path: "/v1/models", headers: { authorization: "Bearer wrong" } });
    expect(r.status).toBe(401);
    expect(r.json()).toEqual({ error: { message: "invalid API key", type: "authentication_error", param: null, code: "invalid_api_key" } });
  });

  test("no keys configured: no caller, every request passes", async () => {
    const r = await raw(url, { path: "/open" });
    expect(r.status).toBe(200);
    expect(r.json()).toBeNull();
  });
});

describe("on the router", () => {
  let router: RunningRouter;
  let open: RunningRouter;
  const headers = (key?: string) => ({ "content-type": "application/json", ...(key && { authorization: `Bearer ${key}` }) });
  beforeAll(async () => {
    router = await testRouter({
      eliza: false,
      config: {
        apiKeys: ["good", { key: "echo-only", name: "echoer", agents: ["echo"] }],
        limits: { authFailuresPerMinute: 3 },
        hub: { tokens: { t: "hub-x" } },
      },
    });
    open = await testRouter({ eliza: false, config: { apiKeys: ["k"], metrics: { public: true } } });
  });
  afterAll(async () => {
    await router.close();
    await open.close();
  });

  test("JSON-RPC: 401 without a key or with a wrong one, 200 with a valid one", async () => {
    const body = rpcBody("tasks/send", { id: "a1", message: { role: "user", parts: [{ type: "text", text: "hi" }] }, metadata: { agent: "echo" } });
    const none = await raw(router.url, { method: "POST", path: "/rpc", headers: headers(), body, localAddress: "127.0.0.9" });
    expect(none.status).toBe(401);
    expect(none.json().error.message).toMatch(/missing API key/);
    const ok = await raw(router.url, { method: "POST", path: "/rpc", headers: headers("good"), body });
    expect(ok.status).toBe(200);
    expect(ok.json().result.status.state).toBe("completed");
  });

  test("/metrics needs a key unless metrics.public; /healthz never does", async () => {
    expect((await raw(router.url, { path: "/metrics", localAddress: "127.0.0.9" })).status).toBe(401);
    const withKey = await raw(router.url, { path: "/metrics", headers: { "x-api-key": "good" } });
    expect(withKey.status).toBe(200);
    expect(withKey.text).toContain("a2a_router_");
    expect((await raw(open.url, { path: "/metrics" })).status).toBe(200);
    expect((await raw(router.url, { path: "/healthz" })).json()).toEqual({ status: "ok" });
  });

  test("a key limited to some agents sees and reaches only those", async () => {
    const listed = (await raw(router.url, { path: "/agents", headers: headers("echo-only") })).json();
    expect(listed.agents.map((a: { id: string }) => a.id)).toEqual(["echo"]);
    const all = (await raw(router.url, { path: "/agents", headers: headers("good") })).json();
    expect(all.agents.length).toBeGreaterThan(1);

    const msg = { id: "lim-1", message: { role: "user", parts: [{ type: "text", text: "hi" }] } };
    const allowed = await raw(router.url, { method: "POST", path: "/agents/echo", headers: headers("echo-only"), body: rpcBody("tasks/send", msg) });
    expect(allowed.json().result.status.state).toBe("completed");
    const refused = await raw(router.url, {
      method: "POST",
      path: "/agents/hub-x",
      headers: headers("echo-only"),
      body: rpcBody("tasks/send", { ...msg, id: "lim-2" }),
    });
    expect(refused.status).toBe(200);
    expect(refused.json().error).toMatchObject({ code: -32602, data: { agent: "hub-x" } });
  });

  test("past authFailuresPerMinute failures an address gets 429 with Retry-After, even with a good key; others are unaffected", async () => {
    const from = "127.0.0.3";
    for (let i = 0; i < 3; i++) {
      expect((await raw(router.url, { path: "/agents", headers: headers("bad"), localAddress: from })).status).toBe(401);
    }
    const limited = await raw(router.url, { path: "/agents", headers: headers("good"), localAddress: from });
    expect(limited.status).toBe(429);
    expect(Number(limited.headers["retry-after"])).toBeGreaterThan(0);
    expect(limited.json().error.message).toMatch(/too many failed authentications/);
    expect((await raw(router.url, { path: "/agents", headers: headers("good"), localAddress: "127.0.0.4" })).status).toBe(200);
    // Open paths stay open.
    expect((await raw(router.url, { path: "/healthz", localAddress: from })).status).toBe(200);
  });
});

test("the caller reaches the JSON-RPC layer (CallContext.caller) for the task service's ownership checks", async () => {
  const seen: Array<CallContext["caller"]> = [];
  const dispatcher = {
    dispatch: async (_body: unknown, ctx: CallContext) => {
      seen.push(ctx.caller);
      return { kind: "json", body: undefined };
    },
  } as unknown as Dispatcher;
  const zero = () => 0;
  const app = createApp({
    dispatcher,
    service: {} as never,
    handler: {} as never,
    agents: new AgentRegistry(),
    metrics: new RouterMetrics({
      liveTasks: zero,
      streams: zero,
      bufferedEvents: zero,
      pendingCommits: zero,
      logFallbacks: zero,
      hubAgents: zero,
      hubAgentsPaused: zero,
    }),
    logger: silentLogger(),
    apiKeys: [{ key: "k1", name: "alice" }],
    maxBodyBytes: 1024,
    heartbeatMs: 1000,
    card: () => ({ baseUrl: "http://x", version: "0", pushNotifications: false }),
  });
  const server = app.listen(0, "127.0.0.1");
  await new Promise((r) => server.once("listening", r));
  try {
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const r = await raw(url, {
      method: "POST",
      path: "/rpc",
      headers: { authorization: "Bearer k1", "content-type": "application/json" },
      body: rpcBody("tasks/get", { id: "x" }),
    });
    expect(r.status).toBe(204);
    expect(seen).toEqual([{ principal: "alice" }]);
  } finally {
    server.close();
  }
});
