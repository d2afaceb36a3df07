import { afterAll, afterEach, beforeAll, describe, expect, test } from "@jest/globals";
import { connect, type Socket } from "node:net";
import { request, type ClientRequest } from "node:http";
import type { RunningRouter } from "../../router/index.js";
import { connectionHeadroom } from "../../router/http/limits.js";
import { testRouter } from "../helpers/router.js";
import { raw, rpcBody } from "./helpers.js";

/** limits.maxConnections and limits.bodyBytesInFlight (CONTRACT 12); maxBodyBytes stays 413. */

/** Opens a TCP connection and waits until the server has accepted it. */
function open(url: string): Promise<Socket> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const s = connect(Number(port), hostname, () => resolve(s));
    s.once("error", reject);
  });
}

/** Sends one raw HTTP/1.1 request on a socket and resolves with the whole response (the server closes). */
function exchange(socket: Socket, path: string): Promise<string> {
  return new Promise((resolve) => {
    let text = "";
    socket.setEncoding("utf8");
    socket.on("data", (c) => (text += c));
    socket.once("close", () => resolve(text));
    socket.write(`GET ${path} HTTP/1.1\r\nHost: localhost\r\n\r\n`);
  });
}

describe("maxConnections", () => {
  let router: RunningRouter;
  const held: Socket[] = [];
  beforeAll(async () => {
    // One client address here: its own bound (tests/edge/per-address.test.ts) is set out of the way.
    router = await testRouter({ eliza: false, config: { limits: { maxConnections: 3, maxConnectionsPerAddress: 3 } } });
  });
  afterAll(async () => {
    for (const s of held) s.destroy();
    await router.close();
  });
  /** Connections the server holds open (it sees a client's close a little after the client). */
  const connections = () => new Promise<number>((r) => router.server.getConnections((_e, n) => r(n)));
  afterEach(async () => {
    for (const s of held.splice(0)) s.destroy();
    // The next test counts from zero: wait until the server has seen every close.
    while ((await connections()) > 0) await new Promise((r) => setImmediate(r));
  });

  test("below the limit requests are served; the next connection gets 503 and is closed; /healthz still answers", async () => {
    for (let i = 0; i < 3; i++) held.push(await open(router.url));
    const over = await exchange(await open(router.url), "/agents");
    expect(over).toMatch(/^HTTP\/1\.1 503/);
    expect(over).toMatch(/connection: close/i);
    expect(over).toMatch(/Retry-After: 1/i);
    expect(over).toMatch(/limits.maxConnections/);
    const health = await exchange(await open(router.url), "/healthz");
    expect(health).toMatch(/^HTTP\/1\.1 200/);
    expect(health).toContain('{"status":"ok"}');
    // Once a held connection closes, a new one is served normally again.
    held.shift()!.destroy();
    while ((await connections()) > 2) await new Promise((r) => setImmediate(r));
    const back = await raw(router.url, { path: "/agents" });
    expect(back.status).toBe(200);
  });

  test("past the headroom connections are cut at once (the hard bound)", async () => {
    const headroom = connectionHeadroom(3);
    for (let i = 0; i < 3 + headroom; i++) held.push(await open(router.url));
    const cut = await open(router.url);
    cut.on("error", () => undefined);
    const ended = await new Promise<string>((resolve) => {
      let text = "";
      cut.on("data", (c) => (text += c));
      cut.once("close", () => resolve(text));
      cut.on("error", () => undefined);
    });
    expect(ended).toBe("");
  });

  test("a WebSocket upgrade on an over-limit connection gets 503", async () => {
    for (let i = 0; i < 3; i++) held.push(await open(router.url));
    const s = await open(router.url);
    const answer = await new Promise<string>((resolve) => {
      let text = "";
      s.setEncoding("utf8");
      s.on("data", (c) => (text += c));
      s.once("close", () => resolve(text));
      s.write(
        "GET /hub HTTP/1.1\r\nHost: localhost\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n",
      );
    });
    expect(answer).toMatch(/^HTTP\/1\.1 503/);
  });
});

describe("bodyBytesInFlight and maxBodyBytes", () => {
  let router: RunningRouter;
  beforeAll(async () => {
    router = await testRouter({ eliza: false, config: { limits: { bodyBytesInFlight: 1000, maxBodyBytes: 4000 } } });
  });
  afterAll(() => router.close());

  /** Starts a POST that declares `length` bytes and sends only the first one, so its body stays in flight. */
  function slowPost(length: number): { req: ClientRequest; response: Promise<number> } {
    const req = request(`${router.url}/rpc`, {
      method: "POST",
      agent: false,
      headers: { "content-type": "application/json", "content-length": String(length) },
    });
    const response = new Promise<number>((resolve, reject) => {
      req.once("response", (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.once("error", reject);
    });
    req.flushHeaders();
    req.write(" ");
    return { req, response };
  }

  test("a body that would exceed the bytes in flight gets 503; once the first is read, bodies fit again", async () => {
    const body = rpcBody("tasks/get", { id: "x" });
    // The router has the first request (its headers) once its 'request' event fired and express ran.
    const arrived = new Promise((r) => router.server.once("request", r));
    const first = slowPost(800 + body.length);
    await arrived;
    await new Promise((r) => setImmediate(r));
    const second = await raw(router.url, { method: "POST", path: "/rpc", headers: { "content-type": "application/json" }, body: " ".repeat(800) + body });
    expect(second.status).toBe(503);
    expect(second.headers["retry-after"]).toBe("1");
    expect(second.json().error.message).toMatch(/bodyBytesInFlight/);
    // A small body still fits beside the first one.
    const small = await raw(router.url, { method: "POST", path: "/rpc", headers: { "content-type": "application/json" }, body });
    expect(small.status).toBe(200);
    first.req.end(" ".repeat(799) + body);
    expect(await first.response).toBe(200);
    const after = await raw(router.url, { method: "POST", path: "/rpc", headers: { "content-type": "application/json" }, body: " ".repeat(800) + body });
    expect(after.status).toBe(200);
  });

  test("a body over maxBodyBytes is 413, as before", async () => {
    const r = await raw(router.url, { method: "POST", path: "/rpc", headers: { "content-type": "application/json" }, body: " ".repeat(5000) });
    expect(r.status).toBe(413);
  });

  test("defaults: 10000 connections, 64 MiB in flight, 30 auth failures a minute", async () => {
    const d = await testRouter({ eliza: false });
    try {
      expect(d.config.limits).toMatchObject({
        maxBodyBytes: 10_485_760,
        maxConnections: 10_000,
        bodyBytesInFlight: 64 * 1024 * 1024,
        authFailuresPerMinute: 30,
      });
    } finally {
      await d.close();
    }
  });
});
