/**
 * Where things are, for a newcomer: the start-up banner on a terminal (a real process under a pseudo-terminal,
 * `script`), none when stdout is piped (JSON lines only), and `GET /` as JSON or, for a browser, HTML links.
 */
import { afterAll, beforeAll, describe, expect, test } from "@jest/globals";
import { spawn } from "node:child_process";
import { ROUTER_NODE_FLAGS } from "../../router/node-flags.js";
import { startupBanner } from "../../router/startup-banner.js";
import type { RunningRouter } from "../../router/index.js";
import { testRouter } from "../helpers/router.js";
import { BIN, ROOT, spawnRouter } from "../helpers/spawn-router.js";

describe("the start-up banner", () => {
  test("names the chat page, the OpenAI base URL, the A2A endpoints and the hub, at publicUrl when set", () => {
    const text = startupBanner({ url: "http://127.0.0.1:8080", publicUrl: "https://chat.example.com/router/", version: "1.2.3", agents: ["echo", "eliza"] });
    expect(text).toContain("a2a-router 1.2.3 is listening on http://127.0.0.1:8080");
    expect(text).toMatch(/Chat page +https:\/\/chat\.example\.com\/router\/chat\n/);
    expect(text).toMatch(/OpenAI base URL +https:\/\/chat\.example\.com\/router\/v1\n/);
    expect(text).toContain("https://chat.example.com/router/rpc  (one agent: https://chat.example.com/router/agents/{agentId})");
    expect(text).toMatch(/Agent hub \(WebSocket\) +wss:\/\/chat\.example\.com\/router\/hub\n/);
    expect(text).toMatch(/Agents +echo, eliza\n/);
    expect(text).toMatch(/MCP server +https:\/\/chat\.example\.com\/router\/mcp\n/);
    expect(text).not.toContain("A2A gRPC");
    expect(text).not.toContain("\u001b["); // no colour codes
  });

  test("without publicUrl: the listening address; no agents says how to get one", () => {
    const text = startupBanner({ url: "http://127.0.0.1:9000", agents: [] });
    expect(text).toMatch(/Chat page +http:\/\/127\.0\.0\.1:9000\/chat\n/);
    expect(text).toMatch(/ws:\/\/127\.0\.0\.1:9000\/hub/);
    expect(text).toContain("none yet (connect one to the hub)");
    expect(startupBanner({ url: "http://127.0.0.1:9000", agents: [], grpcPort: 50051 })).toMatch(/A2A gRPC +127\.0\.0\.1:50051 {2}\(tenant = agent id\)\n/);
  });

  test("a real `serve` on a terminal prints it after listening", async () => {
    const command = [process.execPath, ...ROUTER_NODE_FLAGS, BIN, "serve", "--port", "0", "--store", "memory"].map((a) => `'${a}'`).join(" ");
    // `script` gives the router a pseudo-terminal as stdout; its own group is ended by id afterwards.
    const child = spawn("script", ["-qfc", command, "/dev/null"], {
      cwd: ROOT,
      env: { ...process.env, LOG_LEVEL: "warn" },
      stdio: ["pipe", "pipe", "pipe"],
      detached: true,
    });
    let out = "";
    child.stdout!.on("data", (d) => (out += d));
    const exited = new Promise((r) => child.once("exit", r));
    try {
      await new Promise<void>((resolve, reject) => {
        // Bounded, so a router that never prints still reaches the finally below (and is ended).
        const timer = setTimeout(() => reject(new Error(`no banner within 30 s:\n${out}`)), 30_000);
        const check = () => {
          if (!/Agents [^\n]*\n/.test(out)) return;
          clearTimeout(timer);
          resolve();
        };
        child.stdout!.on("data", check);
        void exited.then(() => reject(new Error(`exited before the banner:\n${out}`)));
      });
      const url = /is listening on (http:\/\/[^\s]+)/.exec(out)![1]!;
      expect(out).toContain(`Chat page              ${url}/chat`);
      expect(out).toContain(`OpenAI base URL        ${url}/v1`);
      expect(out).toContain(`${url.replace("http", "ws")}/hub`);
      expect(out).toMatch(/Agents +echo, eliza\r?\n/);
      expect((await fetch(`${url}/healthz`)).status).toBe(200);
    } finally {
      process.kill(-child.pid!, "SIGTERM");
      await exited;
    }
  });

  test("stdout piped (a log collector): JSON lines only, no banner", async () => {
    const router = await spawnRouter(["--store", "memory"]);
    try {
      const stdout = router
        .output()
        .split("\n")
        .filter((l) => l.trim() !== "" && !l.startsWith("{"));
      expect(stdout).toEqual([]);
      expect(router.output()).not.toContain("Chat page");
    } finally {
      await router.kill();
    }
  });
});

describe("GET /", () => {
  let router: RunningRouter;
  beforeAll(async () => {
    router = await testRouter({ eliza: false });
  });
  afterAll(() => router.close());

  test("JSON by default: where the chat page, /v1, /rpc, /agents, the hub and /healthz are", async () => {
    const res = await fetch(`${router.url}/`);
    expect(res.headers.get("content-type")).toMatch(/^application\/json/);
    expect(await res.json()).toMatchObject({
      name: "a2a-router",
      chat: `${router.url}/chat`,
      openai: `${router.url}/v1`,
      mcp: `${router.url}/mcp`,
      rpc: `${router.url}/rpc`,
      agents: `${router.url}/agents`,
      hub: `${router.url.replace("http", "ws")}/hub`,
      health: `${router.url}/healthz`,
    });
  });

  test("a browser (Accept: text/html) gets the same links as a page", async () => {
    const res = await fetch(`${router.url}/`, { headers: { accept: "text/html,application/xhtml+xml,*/*;q=0.8" } });
    expect(res.headers.get("content-type")).toMatch(/^text\/html/);
    expect(res.headers.get("vary")).toMatch(/Accept/);
    const html = await res.text();
    for (const path of ["/chat", "/v1", "/mcp", "/rpc", "/agents", "/healthz"]) expect(html).toContain(`<a href="${router.url}${path}">`);
    expect(html).toContain(`${router.url.replace("http", "ws")}/hub`);
  });
});
