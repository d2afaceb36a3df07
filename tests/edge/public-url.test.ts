import { afterAll, beforeAll, describe, expect, test } from "@jest/globals";
import type { RunningRouter } from "../../router/index.js";
import { configFromEnv, resolveConfig } from "../../router/config/load.js";
import { SchemaRegistry } from "../../router/schema/validator.js";
import { testRouter } from "../helpers/router.js";
import { raw, rpcBody } from "./helpers.js";

/** publicUrl and trustProxy (CONTRACT 13 "Public URL"): the base every card names. */

const FORWARDED = { "x-forwarded-proto": "https", "x-forwarded-host": "a2a.example.com" };
const card = async (url: string, path: string, headers: Record<string, string> = {}) => (await raw(url, { path, headers })).json();

/** Every URL a card names. */
function cardUrls(c: any): string[] {
  return [c.url, c.provider?.url, ...(c.supportedInterfaces ?? []).map((i: any) => i.url), ...(c.additionalInterfaces ?? []).map((i: any) => i.url)].filter(
    (u): u is string => typeof u === "string",
  );
}

describe("publicUrl", () => {
  let router: RunningRouter;
  beforeAll(async () => {
    router = await testRouter({ eliza: false, config: { publicUrl: "https://gw.example.org/a2a/", trustProxy: true } });
  });
  afterAll(() => router.close());

  test("names every card URL, whatever the request's Host or X-Forwarded-* say", async () => {
    const agent = await card(router.url, "/agents/echo/.well-known/agent-card.json", { ...FORWARDED, host: "other:1" });
    expect(agent.url).toBe("https://gw.example.org/a2a/agents/echo");
    for (const u of cardUrls(agent)) expect(u.startsWith("https://gw.example.org/a2a")).toBe(true);
    const own = await card(router.url, "/.well-known/agent.json");
    expect(own.url).toBe("https://gw.example.org/a2a/rpc");
    const listed = await card(router.url, "/agents");
    expect(listed.agents[0].card.url).toBe("https://gw.example.org/a2a/agents/echo");
  });

  test("a POST from the public origin passes the Origin check", async () => {
    const r = await raw(router.url, {
      method: "POST",
      path: "/rpc",
      headers: { origin: "https://gw.example.org", "content-type": "application/json" },
      body: rpcBody("tasks/get", { id: "x" }),
    });
    expect(r.status).toBe(200);
  });
});

describe("trustProxy", () => {
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

  test("with trustProxy, X-Forwarded-Proto https and X-Forwarded-Host decide: https:// URLs", async () => {
    const c = await card(trusting.url, "/agents/echo/.well-known/agent.json", FORWARDED);
    expect(c.url).toBe("https://a2a.example.com/agents/echo");
    for (const u of cardUrls(c)) expect(u.startsWith("https://a2a.example.com")).toBe(true);
    // The first of several values (the client-facing proxy's); a proto alone keeps the Host.
    const chained = await card(trusting.url, "/.well-known/agent-card.json", {
      "x-forwarded-proto": "https, http",
      "x-forwarded-host": "a.example, b.internal",
    });
    expect(chained.supportedInterfaces[0].url).toBe("https://a.example/rpc");
    const protoOnly = await card(trusting.url, "/.well-known/agent-card.json", { "x-forwarded-proto": "https" });
    expect(protoOnly.supportedInterfaces[0].url).toBe(`https://${new URL(trusting.url).host}/rpc`);
  });

  test("a forwarded host that is not a host is ignored", async () => {
    const c = await card(trusting.url, "/.well-known/agent-card.json", { "x-forwarded-host": "evil.example/path?x", "x-forwarded-proto": "javascript" });
    expect(c.supportedInterfaces[0].url).toBe(`${trusting.url}/rpc`);
  });

  test("without trustProxy, X-Forwarded-* are ignored: the request's Host, as before", async () => {
    const c = await card(plain.url, "/agents/echo/.well-known/agent.json", FORWARDED);
    expect(c.url).toBe(`${plain.url}/agents/echo`);
    const byHost = await card(plain.url, "/agents/echo/.well-known/agent.json", { host: "localhost:9999" });
    expect(byHost.url).toBe("http://localhost:9999/agents/echo");
  });
});

describe("configuration", () => {
  const schemas = new SchemaRegistry();
  test("PUBLIC_URL and TRUST_PROXY from the environment; defaults off", () => {
    const c = resolveConfig(schemas, { env: configFromEnv({ PUBLIC_URL: "https://x.example", TRUST_PROXY: "true" }) });
    expect(c.publicUrl).toBe("https://x.example");
    expect(c.trustProxy).toBe(true);
    const d = resolveConfig(schemas, {});
    expect(d.publicUrl).toBeUndefined();
    expect(d.trustProxy).toBe(false);
  });

  test("a publicUrl that is not an http(s) URL is refused in one line", () => {
    expect(() => resolveConfig(schemas, { file: { publicUrl: "ftp://x" } })).toThrow(/publicUrl/);
    expect(() => resolveConfig(schemas, { file: { publicUrl: "https://x.example/?q=1" } })).toThrow(/publicUrl must be an http\(s\) URL/);
    expect(() => configFromEnv({ TRUST_PROXY: "maybe" })).toThrow(/TRUST_PROXY must be true or false/);
  });
});
