import { afterAll, beforeAll, describe, expect, test } from "@jest/globals";
import WebSocket from "ws";
import type { RunningRouter } from "../../router/index.js";
import { testRouter } from "../helpers/router.js";

/**
 * The Origin rule on the /hub upgrade is the HTTP edge's (CONTRACT 12, 13): "own" is the origin cards name
 * (publicUrl, or the forwarded host with trustProxy) or, on a loopback bind, a loopback Host. One module
 * (router/net/origin.ts) reads them for both.
 */

interface Outcome {
  status: "open" | number;
  body?: string;
  contentType?: string;
}

function upgrade(router: RunningRouter, headers: Record<string, string>): Promise<Outcome> {
  const ws = new WebSocket(router.url.replace(/^http/, "ws") + "/hub", { headers });
  return new Promise((resolve) => {
    ws.once("open", () => {
      ws.close();
      resolve({ status: "open" });
    });
    ws.once("unexpected-response", (_req, res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (c: string) => (body += c));
      res.on("end", () => {
        resolve({ status: res.statusCode ?? 0, body, contentType: String(res.headers["content-type"]) });
        ws.terminate();
      });
    });
    ws.once("error", () => undefined);
  });
}

describe("with publicUrl", () => {
  let router: RunningRouter;
  beforeAll(async () => {
    router = await testRouter({ eliza: false, config: { publicUrl: "https://a2a.example.com/" } });
  });
  afterAll(() => router.close());

  test("the public origin is the router's own; others are refused with the JSON 403 of the hub", async () => {
    expect((await upgrade(router, { origin: "https://a2a.example.com" })).status).toBe("open");
    const refused = await upgrade(router, { origin: "https://evil.example" });
    expect(refused).toEqual({ status: 403, body: JSON.stringify({ error: "origin not allowed" }), contentType: "application/json" });
  });
});

describe("with trustProxy", () => {
  let trusting: RunningRouter;
  let plain: RunningRouter;
  beforeAll(async () => {
    trusting = await testRouter({ eliza: false, config: { trustProxy: true } });
    plain = await testRouter({ eliza: false });
  });
  afterAll(async () => {
    await trusting.close();
    await plain.close();
  });

  const forwarded = { "x-forwarded-proto": "https", "x-forwarded-host": "agents.example.org", origin: "https://agents.example.org" };

  test("the forwarded host is the router's own only when the proxy is trusted", async () => {
    expect((await upgrade(trusting, forwarded)).status).toBe("open");
    expect((await upgrade(plain, forwarded)).status).toBe(403);
    expect((await upgrade(trusting, { ...forwarded, origin: "http://agents.example.org" })).status).toBe(403);
  });
});

describe("on a loopback bind", () => {
  let router: RunningRouter;
  beforeAll(async () => {
    router = await testRouter({ eliza: false });
  });
  afterAll(() => router.close());

  test("DNS rebinding: a non-loopback Host does not make its Origin own; a loopback one does", async () => {
    const port = router.port;
    expect((await upgrade(router, { host: `rebind.example:${port}`, origin: `http://rebind.example:${port}` })).status).toBe(403);
    expect((await upgrade(router, { host: `localhost:${port}`, origin: `http://localhost:${port}` })).status).toBe("open");
    expect((await upgrade(router, {})).status).toBe("open");
  });
});
