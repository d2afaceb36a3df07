import { execFile } from "node:child_process";
import { existsSync, readFileSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, test } from "@jest/globals";
import { parse } from "yaml";
import { startHttpSseAgent, type RunningHttpAgent } from "../agents/examples/http-sse-agent.js";
import { connectAgent, type Agent } from "../agents/sdk/index.js";
import { resolveConfig, startRouter, type RunningRouter } from "../router/index.js";
import { ROUTER_NODE_FLAGS } from "../router/node-flags.js";
import { SchemaRegistry } from "../router/schema/validator.js";

/**
 * Docker cannot run here, so the compose file is checked statically: every service, port, env var,
 * healthcheck, build context, mounted file and command must point at something that exists and agrees
 * with the rest; the healthcheck commands themselves are run against real servers.
 */
const ROOT = resolve(process.cwd());
const compose = parse(readFileSync(join(ROOT, "docker-compose.yml"), "utf8")) as {
  services: Record<string, Service>;
  volumes?: Record<string, unknown>;
};
const dockerfile = readFileSync(join(ROOT, "Dockerfile"), "utf8");

interface Service {
  build?: string | { context: string; dockerfile?: string };
  image?: string;
  command?: string[];
  environment?: Record<string, string>;
  ports?: string[];
  expose?: string[];
  volumes?: string[];
  depends_on?: Record<string, { condition: string }>;
  healthcheck?: { test: string[]; interval?: string; timeout?: string; retries?: number };
}

const services = compose.services;
const router = services.router!;
const configMount = router.volumes!.map((v) => v.split(":")).find(([, target]) => target === "/config/a2a-router.config.json")!;
const configFile = JSON.parse(readFileSync(join(ROOT, configMount[0]!), "utf8"));

/** Compose's `${VAR:-default}` as compose would expand it with VAR unset. */
function expand(value: string): string {
  return value.replace(/\$\{[A-Z_]+:-([^}]*)\}/g, "$1");
}

/** The source a `node dist/....js` command runs once built. */
function sourceOf(script: string): string {
  return join(ROOT, script.replace(/^dist\//, "").replace(/\.js$/, ".ts"));
}

describe("docker-compose.yml", () => {
  test("has two routers, the load balancer, redis, the example WS agents and the example HTTP agent, each with a healthcheck", () => {
    expect(Object.keys(services).sort()).toEqual(["http-agent", "lb", "redis", "router", "router-2", "ws-agent", "ws-complete-agent"]);
    for (const [name, service] of Object.entries(services)) {
      expect({ name, test: service.healthcheck?.test?.[0] }).toEqual({ name, test: expect.stringMatching(/^CMD(-SHELL)?$/) });
      expect(service.healthcheck!.interval).toBeDefined();
      expect(service.healthcheck!.retries).toBeGreaterThan(0);
    }
  });

  test("every built service builds this repository's Dockerfile; they share one image", () => {
    for (const name of ["router", "http-agent", "ws-agent", "ws-complete-agent"]) {
      const s = services[name]!;
      const context = typeof s.build === "string" ? s.build : s.build!.context;
      expect(statSync(join(ROOT, context)).isDirectory()).toBe(true);
      expect(existsSync(join(ROOT, context, "Dockerfile"))).toBe(true);
      expect(s.image).toBe(router.image);
    }
  });

  test("every node command runs a script the build produces", () => {
    for (const [name, s] of Object.entries(services)) {
      if (s.command?.[0] !== "node") continue;
      const script = s.command.slice(1).find((arg) => !arg.startsWith("--"))!;
      expect({ name, exists: existsSync(sourceOf(script)) }).toEqual({ name, exists: true });
    }
    const healthCli = services["ws-agent"]!.healthcheck!.test[1]!.match(/node (dist\/\S+\.js)/)![1]!;
    expect(existsSync(sourceOf(healthCli))).toBe(true);
  });

  test("the second router is the first one again, on the same image (one cluster on one Redis)", () => {
    const { build, ...rest } = router;
    expect(build).toBeDefined();
    expect(services["router-2"]).toEqual(rest);
  });

  test("the router listens on 0.0.0.0:8080, reached through the load balancer, with the config file mounted read-only", () => {
    expect(router.command).toEqual([
      "node",
      ...ROUTER_NODE_FLAGS,
      "dist/router/bin.js",
      "serve",
      "--host",
      "0.0.0.0",
      "--port",
      "8080",
      "--config",
      "/config/a2a-router.config.json",
    ]);
    expect(router.ports).toBeUndefined();
    expect(router.expose).toEqual(["8080"]);
    expect(configMount).toEqual(["./docker/a2a-router.config.json", "/config/a2a-router.config.json", "ro"]);
    expect(existsSync(join(ROOT, configMount[0]!))).toBe(true);
  });

  test("the router stores in the redis service and, bound beyond loopback, requires an API key", () => {
    const env = router.environment!;
    expect(new URL(env.A2A_ROUTER_STORE!).hostname).toBe("redis");
    expect(expand(env.ROUTER_API_KEYS!)).not.toBe("");
    expect(router.depends_on).toEqual({ redis: { condition: "service_healthy" }, "http-agent": { condition: "service_healthy" } });
    expect(compose.volumes).toHaveProperty(services.redis!.volumes![0]!.split(":")[0]!);
  });

  test("the config's upstream agent is the http-agent service, on the port it listens on", () => {
    const http = services["http-agent"]!;
    expect(configFile.agents).toHaveLength(1);
    const url = new URL(configFile.agents[0].url);
    expect(url.hostname).toBe("http-agent");
    expect(url.port).toBe(http.environment!.PORT);
    expect(http.expose).toEqual([http.environment!.PORT]);
    expect(http.environment!.HOST).toBe("0.0.0.0");
  });

  test("the load balancer is published on loopback and passes every router, SSE unbuffered, WebSocket upgrades through", () => {
    const lb = services.lb!;
    expect(lb.ports).toEqual(["127.0.0.1:8080:8080"]);
    expect(lb.depends_on).toEqual({ router: { condition: "service_healthy" }, "router-2": { condition: "service_healthy" } });
    const [source, target, mode] = lb.volumes![0]!.split(":");
    expect([target, mode]).toEqual(["/etc/nginx/conf.d/default.conf", "ro"]);
    const nginx = readFileSync(join(ROOT, source!), "utf8").replace(/#.*$/gm, "");
    const upstreams = [...nginx.matchAll(/^\s*server\s+([\w-]+):(\d+)/gm)].map((m) => `${m[1]}:${m[2]}`);
    expect(upstreams.sort()).toEqual(["router-2:8080", "router:8080"]);
    expect(nginx).toMatch(/listen 8080;/);
    expect(nginx).toMatch(/proxy_buffering off;/);
    expect(nginx).toMatch(/proxy_http_version 1\.1;/);
    expect(nginx).toMatch(/proxy_set_header Upgrade \$http_upgrade;/);
    expect(nginx).toMatch(/proxy_set_header Connection \$connection_upgrade;/);
    // Long streams and idle hub sockets outlive nginx's 60 s default.
    expect(Number(nginx.match(/proxy_read_timeout (\d+)h;/)?.[1])).toBeGreaterThanOrEqual(1);
    expect(lb.healthcheck!.test.join(" ")).toContain("http://127.0.0.1:8080/healthz");
  });

  test("each WS agent dials the cluster's hub (through the load balancer) with a token the config grants to its name", () => {
    for (const name of ["ws-agent", "ws-complete-agent"]) {
      const env = services[name]!.environment!;
      const hub = new URL(env.A2A_HUB_URL!);
      expect([hub.protocol, hub.hostname, hub.port, hub.pathname]).toEqual(["ws:", "lb", "8080", "/hub"]);
      expect(configFile.hub.tokens[env.A2A_HUB_TOKEN!]).toBe(env.AGENT_NAME);
      expect(new URL(env.A2A_ROUTER_URL!).host).toBe("lb:8080");
      expect(expand(env.A2A_ROUTER_API_KEY!)).toBe(expand(router.environment!.ROUTER_API_KEYS!));
      expect(services[name]!.depends_on).toEqual({ lb: { condition: "service_healthy" } });
      expect(services[name]!.healthcheck!.test[1]).toContain(`"id":"${env.AGENT_NAME}"`);
    }
  });

  test("the mounted config is valid for the router", () => {
    const config = resolveConfig(new SchemaRegistry(), { file: configFile, flags: { host: "0.0.0.0", apiKeys: ["k"] } });
    expect(config.agents[0]!.id).toBe("reverser");
  });
});

describe("the router's Node flags (router/node-flags.ts)", () => {
  test("npm start launches the router with them, as the image and compose do", () => {
    const start = (JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { scripts: Record<string, string> }).scripts.start;
    expect(start).toBe(["node", ...ROUTER_NODE_FLAGS, "dist/router/bin.js", "serve"].join(" "));
  });
});

describe("Dockerfile", () => {
  test("builds on node:24-slim with npm ci and the build, and serves on 0.0.0.0", () => {
    expect(dockerfile).toMatch(/^FROM node:24-slim AS build$/m);
    expect(dockerfile).toMatch(/^FROM node:24-slim$/m);
    expect(dockerfile).toMatch(/^RUN npm ci\b/m);
    expect(dockerfile).toMatch(/npm run build/);
    const cmd = JSON.stringify(["node", ...ROUTER_NODE_FLAGS, "dist/router/bin.js", "serve", "--host", "0.0.0.0"]).replaceAll(",", ", ");
    expect(dockerfile.split("\n")).toContain(`CMD ${cmd}`);
  });

  test("the runtime image carries what `serve` reads from the package: dist, schemas and the chat page's static files", () => {
    const runtime = dockerfile.slice(dockerfile.lastIndexOf("FROM "));
    const carried = [...runtime.matchAll(/^COPY --from=build \/app\/(\S+) /gm)].map((m) => m[1]);
    expect(carried).toEqual(expect.arrayContaining(["dist", "schemas", "node_modules", "router/faces/chat-page/static"]));
    expect(existsSync(join(ROOT, "router/faces/chat-page/static/index.html"))).toBe(true);
  });

  test("copies only things that exist, and .dockerignore keeps local builds and modules out", () => {
    const copies = [...dockerfile.matchAll(/^COPY (?!--from)(.+) \S+$/gm)].flatMap((m) => m[1]!.split(" "));
    expect(copies.length).toBeGreaterThan(0);
    for (const source of copies) expect({ source, exists: existsSync(join(ROOT, source)) }).toEqual({ source, exists: true });
    const ignored = readFileSync(join(ROOT, ".dockerignore"), "utf8").split("\n");
    expect(ignored).toEqual(expect.arrayContaining(["node_modules", "dist", "data"]));
    expect(copies.some((c) => ignored.includes(c))).toBe(false);
  });
});

describe("the healthcheck commands, run against real servers", () => {
  let running: RunningRouter;
  let httpAgent: RunningHttpAgent;
  let agent: Agent;
  const run = promisify(execFile);

  beforeAll(async () => {
    httpAgent = await startHttpSseAgent({ port: 0 });
    running = await startRouter({ port: 0, store: "memory" });
    agent = connectAgent({ url: `${running.url.replace(/^http/, "ws")}/hub`, name: "streamer", logger: { debug() {}, info() {}, warn() {}, error() {} } });
    agent.skill({ name: "s", description: "" }, async () => "");
    await agent.ready;
  });

  afterAll(async () => {
    await agent.close();
    await running.close();
    await httpAgent.close();
  });

  test("the router's and the HTTP agent's node -e probes exit 0 on a healthy server", async () => {
    const routerProbe = router.healthcheck!.test[3]!.replace("127.0.0.1:8080", `127.0.0.1:${running.port}`);
    await expect(run(process.execPath, ["-e", routerProbe])).resolves.toBeDefined();
    const agentProbe = services["http-agent"]!.healthcheck!.test[3]!.replace("127.0.0.1:9001", `127.0.0.1:${httpAgent.port}`);
    await expect(run(process.execPath, ["-e", agentProbe])).resolves.toBeDefined();
  });

  test("the WS agent's grep matches the CLI's --json line for an online agent, and only then", async () => {
    const pattern = services["ws-agent"]!.healthcheck!.test[1]!.match(/grep -q '(.+)'$/)![1]!;
    const listing = ((await (await fetch(`${running.url}/agents`)).json()) as { agents: Array<{ id: string; online: boolean }> }).agents;
    const line = JSON.stringify(listing.find((a) => a.id === "streamer"));
    expect(line).toMatch(new RegExp(pattern));
    expect(line.replace('"online":true', '"online":false')).not.toMatch(new RegExp(pattern));
  });
});
