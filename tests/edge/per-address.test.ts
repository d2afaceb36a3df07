import { afterAll, afterEach, beforeAll, describe, expect, test } from "@jest/globals";
import { connect, type Socket } from "node:net";
import { configFromEnv } from "../../router/config/load.js";
import type { RunningRouter } from "../../router/index.js";
import { connectionHeadroom, defaultConnectionsPerAddress } from "../../router/http/limits.js";
import { testRouter } from "../helpers/router.js";
import { raw } from "./helpers.js";

/**
 * limits.maxConnectionsPerAddress (CONTRACT 12, SECURITY.md row 30): one client address holding its bound of
 * idle sockets cannot make the router unreachable. Its next connections are answered 503 (`/healthz` still
 * answers on them), past a headroom they are cut at once, and another address is served meanwhile. Two
 * clients on one machine: Linux routes all of 127/8 to loopback, so 127.0.0.2 is another address.
 */

const MAX = 8;
const PER_ADDRESS = 3;

/** Opens a TCP connection from `localAddress` and waits until the server has accepted it. */
function open(url: string, localAddress: string): Promise<Socket> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const s = connect({ port: Number(port), host: hostname, localAddress }, () => resolve(s));
    s.once("error", reject);
  });
}

/** Sends one raw GET on a socket; resolves with all the server sent until it closed (or ended). */
function exchange(socket: Socket, path: string): Promise<string> {
  return new Promise((resolve) => {
    let text = "";
    socket.setEncoding("utf8");
    socket.on("data", (c) => (text += c));
    socket.on("error", () => undefined);
    socket.once("close", () => resolve(text));
    socket.write(`GET ${path} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n`);
  });
}

describe("maxConnectionsPerAddress", () => {
  let router: RunningRouter;
  const held: Socket[] = [];
  beforeAll(async () => {
    router = await testRouter({ eliza: false, config: { limits: { maxConnections: MAX, maxConnectionsPerAddress: PER_ADDRESS } } });
  });
  afterAll(async () => {
    for (const s of held) s.destroy();
    await router.close();
  });
  const connections = () => new Promise<number>((r) => router.server.getConnections((_e, n) => r(n)));
  afterEach(async () => {
    for (const s of held.splice(0)) s.destroy();
    while ((await connections()) > 0) await new Promise((r) => setImmediate(r));
  });

  test("one address at its bound gets 503 (healthz still answers); another address is served", async () => {
    for (let i = 0; i < PER_ADDRESS; i++) held.push(await open(router.url, "127.0.0.2"));
    const over = await exchange(await open(router.url, "127.0.0.2"), "/agents");
    expect(over).toMatch(/^HTTP\/1\.1 503/);
    expect(over).toMatch(/Retry-After: 1/i);
    expect(over).toMatch(/limits\.maxConnectionsPerAddress/);
    const health = await exchange(await open(router.url, "127.0.0.2"), "/healthz");
    expect(health).toMatch(/^HTTP\/1\.1 200/);
    // The other address: served, /healthz and a real request alike.
    expect((await raw(router.url, { path: "/healthz", localAddress: "127.0.0.1" })).status).toBe(200);
    expect((await raw(router.url, { path: "/agents", localAddress: "127.0.0.1" })).status).toBe(200);
  });

  test("past its headroom an address's connections are cut at once; the other address still has its room", async () => {
    const cutAt = PER_ADDRESS + connectionHeadroom(PER_ADDRESS);
    for (let i = 0; i < cutAt; i++) held.push(await open(router.url, "127.0.0.2"));
    const cut = await open(router.url, "127.0.0.2");
    expect(await exchange(cut, "/healthz")).toBe("");
    // Every connection 127.0.0.1 may have is served normally, though 127.0.0.2 holds more than MAX sockets.
    const mine: Socket[] = [];
    for (let i = 0; i < PER_ADDRESS - 1; i++) mine.push(await open(router.url, "127.0.0.1"));
    held.push(...mine);
    expect((await raw(router.url, { path: "/agents", localAddress: "127.0.0.1" })).status).toBe(200);
  });

  test("the default is half of maxConnections; MAX_CONNECTIONS_PER_ADDRESS sets it", async () => {
    expect(configFromEnv({ MAX_CONNECTIONS_PER_ADDRESS: "7" }).limits).toMatchObject({ maxConnectionsPerAddress: 7 });
    expect(() => configFromEnv({ MAX_CONNECTIONS_PER_ADDRESS: "many" })).toThrow(/MAX_CONNECTIONS_PER_ADDRESS/);
    expect(defaultConnectionsPerAddress(10_000)).toBe(5000);
    expect(defaultConnectionsPerAddress(1)).toBe(1);
    const d = await testRouter({ eliza: false, config: { limits: { maxConnections: 4 } } });
    const sockets: Socket[] = [];
    try {
      for (let i = 0; i < 2; i++) sockets.push(await open(d.url, "127.0.0.2"));
      expect(await exchange(await open(d.url, "127.0.0.2"), "/agents")).toMatch(/^HTTP\/1\.1 503/);
      expect((await raw(d.url, { path: "/agents", localAddress: "127.0.0.1" })).status).toBe(200);
    } finally {
      for (const s of sockets) s.destroy();
      await d.close();
    }
  });
});
