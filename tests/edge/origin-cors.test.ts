import { afterAll, beforeAll, describe, expect, test } from "@jest/globals";
import type { RunningRouter } from "../../router/index.js";
import { SchemaRegistry } from "../../router/schema/validator.js";
import { configFromEnv, resolveConfig } from "../../router/config/load.js";
import { testRouter } from "../helpers/router.js";
import { request } from "node:http";
import { raw, rpcBody } from "./helpers.js";

/** The Origin check on POSTs (CONTRACT 12) and CORS (CONTRACT 10). */

const APP = "https://app.example.com";
let router: RunningRouter;
let host: string;

beforeAll(async () => {
  router = await testRouter({ eliza: false, config: { cors: { origins: [APP, "http://localhost:5173"] } } });
  host = new URL(router.url).host;
});
afterAll(() => router.close());

const send = (path: string, headers: Record<string, string>) =>
  raw(router.url, {
    method: "POST",
    path,
    headers: { "content-type": "application/json", ...headers },
    body: rpcBody("tasks/get", { id: "nope" }),
  });

describe("POST with an Origin", () => {
  test.each(["/rpc", "/", "/agents/echo"])("%s: a listed origin passes and gets Access-Control-Allow-Origin", async (path) => {
    const r = await send(path, { origin: APP });
    expect(r.status).toBe(200);
    expect(r.json().error.code).toBe(-32001); // reached the dispatcher
    expect(r.headers["access-control-allow-origin"]).toBe(APP);
    expect(r.headers.vary).toMatch(/Origin/);
  });

  test.each(["/rpc", "/", "/agents/echo", "/v1/chat/completions", "/api/chat", "/nowhere"])("%s: an unlisted origin is refused with 403 JSON", async (path) => {
    const r = await send(path, { origin: "https://evil.example" });
    expect(r.status).toBe(403);
    expect(r.headers["content-type"]).toMatch(/application\/json/);
    expect(r.json().error.message).toMatch(/origin "https:\/\/evil.example" is not allowed/);
    expect(r.headers["access-control-allow-origin"]).toBeUndefined();
  });

  test("on /v1 the refusal has OpenAI's error shape", async () => {
    const r = await send("/v1/chat/completions", { origin: "https://evil.example" });
    expect(r.json().error).toMatchObject({ type: "permission_error", code: "forbidden" });
  });

  test("the router's own origin (its Host) passes; no Origin at all passes", async () => {
    expect((await send("/rpc", { origin: `http://${host}` })).status).toBe(200);
    expect((await send("/rpc", {})).status).toBe(200);
  });

  test("origin matching is exact: other scheme, port, sub-domain or 'null' are refused", async () => {
    for (const origin of ["http://app.example.com", "https://app.example.com:8443", "https://x.app.example.com", "null", `https://${host}`]) {
      expect([origin, (await send("/rpc", { origin })).status]).toEqual([origin, 403]);
    }
  });

  test("DNS rebinding: on a loopback bind, a non-loopback Host does not make its Origin 'own'", async () => {
    const r = await send("/rpc", { host: `rebind.example:${router.port}`, origin: `http://rebind.example:${router.port}` });
    expect(r.status).toBe(403);
    expect((await send("/rpc", { host: `localhost:${router.port}`, origin: `http://localhost:${router.port}` })).status).toBe(200);
  });

  test("GETs are not refused by Origin (cards, lists); an unlisted origin gets no CORS header", async () => {
    const r = await raw(router.url, { path: "/agents", headers: { origin: "https://evil.example" } });
    expect(r.status).toBe(200);
    expect(r.headers["access-control-allow-origin"]).toBeUndefined();
  });
});

describe("preflights", () => {
  const preflight = (path: string, origin: string) =>
    raw(router.url, {
      method: "OPTIONS",
      path,
      headers: { origin, "access-control-request-method": "POST", "access-control-request-headers": "authorization, content-type" },
    });

  test.each(["/rpc", "/", "/agents/echo", "/agents/echo/.well-known/agent-card.json", "/v1/chat/completions", "/api/chat"])(
    "%s: a listed origin is answered with the allowed methods and headers",
    async (path) => {
      const r = await preflight(path, "http://localhost:5173");
      expect(r.status).toBe(204);
      expect(r.headers["access-control-allow-origin"]).toBe("http://localhost:5173");
      expect(r.headers["access-control-allow-methods"]).toBe("POST, GET, OPTIONS");
      expect(String(r.headers["access-control-allow-headers"]).split(", ").sort()).toEqual([
        "a2a-version",
        "authorization",
        "content-type",
        "idempotency-key",
        "last-event-id",
        "x-agent",
        "x-api-key",
        "x-session-id",
      ]);
    },
  );

  test("an unlisted origin's preflight gets no allow headers", async () => {
    const r = await preflight("/rpc", "https://evil.example");
    expect(r.headers["access-control-allow-origin"]).toBeUndefined();
    expect(r.headers["access-control-allow-methods"]).toBeUndefined();
    expect(r.headers["access-control-allow-headers"]).toBeUndefined();
  });

  test("with no cors.origins configured nobody gets allow headers", async () => {
    const plain = await testRouter({ eliza: false });
    try {
      const r = await raw(plain.url, { method: "OPTIONS", path: "/rpc", headers: { origin: APP, "access-control-request-method": "POST" } });
      expect(r.headers["access-control-allow-origin"]).toBeUndefined();
      const post = await raw(plain.url, { method: "POST", path: "/rpc", headers: { origin: APP, "content-type": "application/json" }, body: "{}" });
      expect(post.status).toBe(403);
    } finally {
      await plain.close();
    }
  });
});

describe("configuration", () => {
  const schemas = new SchemaRegistry();
  test("CORS_ORIGINS is a comma-separated list; entries must be origins", () => {
    expect(resolveConfig(schemas, { env: configFromEnv({ CORS_ORIGINS: "https://a.example, http://localhost:3000" }) }).cors.origins).toEqual([
      "https://a.example",
      "http://localhost:3000",
    ]);
    expect(resolveConfig(schemas, {}).cors.origins).toEqual([]);
    expect(() => resolveConfig(schemas, { file: { cors: { origins: ["https://a.example/path"] } } })).toThrow(/cors.origins entry "https:\/\/a.example\/path"/);
    expect(() => resolveConfig(schemas, { file: { cors: { origins: ["*"] } } })).toThrow(/cors.origins entry/);
  });
});

/** Opens a WebSocket upgrade on /hub with the given Host and Origin; resolves with 101 or the refusal's status. */
function upgrade(headers: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(`${router.url}/hub`, {
      agent: false,
      headers: { connection: "Upgrade", upgrade: "websocket", "sec-websocket-key": "dGhlIHNhbXBsZSBub25jZQ==", "sec-websocket-version": "13", ...headers },
    });
    req.once("upgrade", (_res, socket) => {
      socket.destroy();
      resolve(101);
    });
    req.once("response", (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.once("error", reject);
    req.end();
  });
}

describe("the /hub upgrade", () => {
  test("DNS rebinding: on a loopback bind a non-loopback Host does not make its Origin 'own'; loopback Hosts and listed origins do", async () => {
    expect(await upgrade({ host: `rebind.example:${router.port}`, origin: `http://rebind.example:${router.port}` })).toBe(403);
    expect(await upgrade({ host: `localhost:${router.port}`, origin: `http://localhost:${router.port}` })).toBe(101);
    expect(await upgrade({ origin: APP })).toBe(101);
    expect(await upgrade({})).toBe(101);
  });
});
