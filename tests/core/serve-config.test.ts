import { afterAll, describe, expect, test } from "@jest/globals";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SchemaRegistry } from "../../router/schema/validator.js";
import { configFromEnv, readConfigFile, resolveConfig } from "../../router/config/load.js";
import { getJson } from "../helpers/rpc.js";
import { runBin, spawnRouter } from "../helpers/spawn-router.js";

const dir = mkdtempSync(join(tmpdir(), "a2a-config-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const schemas = new SchemaRegistry();
const file = (name: string, content: unknown) => {
  const p = join(dir, name);
  writeFileSync(p, typeof content === "string" ? content : JSON.stringify(content));
  return p;
};

describe("configuration", () => {
  test("env overrides the file and flags override env", () => {
    const config = resolveConfig(schemas, {
      file: { port: 1000, taskTimeoutMs: 5, hub: { timeoutMs: 7 } },
      env: configFromEnv({ PORT: "2000", HUB_TOKENS: "t1=a,t2=b,t1=c", ROUTER_API_KEYS: "k1, k2" }),
      flags: { port: 3000 },
    });
    expect(config.port).toBe(3000);
    expect(config.taskTimeoutMs).toBe(5);
    expect(config.hub).toEqual({ timeoutMs: 7, tokens: { t1: ["a", "c"], t2: ["b"] }, registerTimeoutMs: 10000, resumeGraceMs: 2000, allowedOrigins: [] });
    expect(config.apiKeys).toEqual(["k1", "k2"]);
    expect(config.heartbeatMs).toBe(15000);
    expect(config.limits.maxBodyBytes).toBe(10485760);
  });

  test("relative paths in a config file are relative to the file", () => {
    const sub = join(dir, "conf");
    mkdirSync(sub, { recursive: true });
    const cfg = file("conf/rel.json", { store: "sqlite:./db/router.db", eliza: { character: "./me.json", plugins: ["./p.mjs", "/abs/q.mjs"] } });
    const read = readConfigFile(cfg, "/somewhere/else");
    expect(read.store).toBe(`sqlite:${join(sub, "db", "router.db")}`);
    expect(read.eliza).toEqual({ character: join(sub, "me.json"), plugins: [join(sub, "p.mjs"), "/abs/q.mjs"] });
  });

  test("the cluster's lease and the Redis key prefix: defaults, env, file", () => {
    const defaults = resolveConfig(schemas, {});
    expect(defaults.cluster).toEqual({ leaseMs: 5000 });
    expect(defaults.redisPrefix).toBe("a2a-router:");
    const set = resolveConfig(schemas, {
      file: { cluster: { leaseMs: 2000 } },
      env: configFromEnv({ CLUSTER_LEASE_MS: "3000", A2A_ROUTER_REDIS_PREFIX: "blue:" }),
    });
    expect(set.cluster.leaseMs).toBe(3000);
    expect(set.redisPrefix).toBe("blue:");
    expect(() => resolveConfig(schemas, { file: { cluster: { leaseMs: 10 } } })).toThrow(/cluster\.leaseMs must be >= 100/);
    expect(() => configFromEnv({ CLUSTER_LEASE_MS: "soon" })).toThrow('Invalid config: CLUSTER_LEASE_MS must be an integer, got "soon"');
  });

  test("idempotency.ttlMs: a day by default, env and file set it, it must be a positive integer", () => {
    expect(resolveConfig(schemas, {}).idempotency).toEqual({ ttlMs: 86_400_000 });
    expect(resolveConfig(schemas, { file: { idempotency: { ttlMs: 60_000 } } }).idempotency.ttlMs).toBe(60_000);
    expect(resolveConfig(schemas, { file: { idempotency: { ttlMs: 60_000 } }, env: configFromEnv({ IDEMPOTENCY_TTL_MS: "5000" }) }).idempotency.ttlMs).toBe(
      5000,
    );
    expect(() => resolveConfig(schemas, { file: { idempotency: { ttlMs: 0 } } })).toThrow(/idempotency\.ttlMs must be >= 1/);
  });

  test("a bad store is named with the accepted forms", () => {
    expect(() => resolveConfig(schemas, { env: configFromEnv({ A2A_ROUTER_STORE: "mysql://x" }) })).toThrow(
      "Invalid config: store must be memory, sqlite:PATH or redis://...: got mysql://x",
    );
  });

  test("a bad key is named in one line", () => {
    expect(() => resolveConfig(schemas, { file: { taskTimeoutMs: "soon" as never } })).toThrow(/taskTimeoutMs must be integer/);
    expect(() => resolveConfig(schemas, { file: { agnets: [] } as never })).toThrow(/agnets is not allowed/);
    expect(() => resolveConfig(schemas, { file: { agents: [{ id: "x" }] } as never })).toThrow(/agents\[0\]\.url is required/);
    const agent = (protocol: string) => ({ file: { agents: [{ id: "x", url: "http://h", protocol }] } });
    for (const ok of ["0.1", "0.3", "1.0", "1.0.1", "1.0+rest", "1.0+grpc", "1.0+jsonrpc"]) expect(() => resolveConfig(schemas, agent(ok))).not.toThrow();
    for (const bad of ["0.3+rest", "0.3+grpc", "1.0+soap", "2.0"]) expect(() => resolveConfig(schemas, agent(bad))).toThrow(/agents\[0\]\.protocol/);
    expect(() => configFromEnv({ HUB_TOKENS: "nonsense" })).toThrow(/HUB_TOKENS entry "nonsense"/);
  });

  test("an invalid config file exits 2 with one clear line", async () => {
    const bad = file("bad.json", { hub: { tokens: { t: 5 } } });
    const r = await runBin(["serve", "--config", bad, "--port", "0"]);
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split("\n")).toHaveLength(1);
    expect(r.stderr).toMatch(/hub\.tokens\.t/);
  });

  test("a config file that is not JSON, or missing, exits 2", async () => {
    expect((await runBin(["serve", "--config", file("broken.json", "{"), "--port", "0"])).code).toBe(2);
    const missing = await runBin(["serve", "--config", join(dir, "nope.json"), "--port", "0"]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/does not exist/);
  });

  test("a bad --store or --port is a usage error, exit 2", async () => {
    const store = await runBin(["serve", "--store", "mongodb://x", "--port", "0"]);
    expect(store.code).toBe(2);
    expect(store.stderr).toMatch(/store/);
    expect((await runBin(["serve", "--port", "http"])).code).toBe(2);
  });

  test("an unknown defaultAgent or an agents id taken by a hosted agent exits 2 naming it", async () => {
    const unknown = await runBin(["serve", "--port", "0", "--store", "memory"], { DEFAULT_AGENT: "nobody" });
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/defaultAgent "nobody"/);
    const clash = await runBin([
      "serve",
      "--port",
      "0",
      "--store",
      "memory",
      "--config",
      file("clash.json", { agents: [{ id: "echo", url: "http://127.0.0.1:9" }] }),
    ]);
    expect(clash.code).toBe(2);
    expect(clash.stderr).toMatch(/agents id "echo" is taken/);
  });

  test("a non-loopback bind without API keys is refused unless --allow-open", async () => {
    const r = await runBin(["serve", "--host", "0.0.0.0", "--port", "0", "--store", "memory"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--allow-open/);
    const open = await spawnRouter(["--host", "0.0.0.0", "--store", "memory", "--allow-open"]);
    expect((await fetch(open.url + "/healthz")).status).toBe(200);
    expect(await open.kill()).toBe(0);
  });

  test("the config file adds agents, tokens and limits; the served router honours them", async () => {
    const cfg = file("good.json", { hub: { tokens: { secret: "vip" } }, limits: { maxBodyBytes: 100 }, apiKeys: ["key-1"] });
    const r = await spawnRouter(["--config", cfg, "--store", "memory"]);
    const listed = await getJson(r.url + "/agents", { authorization: "Bearer key-1" });
    expect(listed.agents.find((a: { id: string }) => a.id === "vip")).toMatchObject({ transport: "ws", online: false });
    const big = await fetch(r.url + "/rpc", { method: "POST", headers: { authorization: "Bearer key-1" }, body: "x".repeat(200) });
    expect(big.status).toBe(413);
    await r.kill();
  });
});
