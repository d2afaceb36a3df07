/**
 * The starter plugin (agents/eliza/plugins/starter, in the shape of elizaOS's plugin-starter template) as a
 * user meets it (CONTRACT 13):
 * - through the router's config (`eliza.plugins`): its action runs in a turn, its service is reachable through
 *   runtime.getService, its routes answer under /api/plugins/plugin-starter/, its event handlers fire, and the
 *   router's shutdown stops the service;
 * - as an elizaOS plugin: the source with `@elizaos/core` as its import, with only that string replaced by
 *   `a2a-router/eliza`, compiles (strict tsc, against the built package's types) in a project that has the
 *   package installed, and loads with `serve --eliza-plugin`.
 */
import { afterAll, beforeAll, describe, expect, test } from "@jest/globals";
import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import type { ElizaAgent } from "../../agents/eliza/index.js";
import { StarterService } from "../../agents/eliza/plugins/starter/index.js";
import { ensureBuilt, ROOT } from "../cli/build.js";
import { testRouter } from "../helpers/router.js";
import { spawnRouter } from "../helpers/spawn-router.js";

const run = promisify(execFile);
const STARTER_DIR = join(ROOT, "agents", "eliza", "plugins", "starter");
const ROUTES = "/api/plugins/plugin-starter";

/** Sends `text` to the router's default agent (eliza) and returns the finished task. */
async function send(url: string, text: string): Promise<{ status: { state: string; message?: { parts: Array<{ text?: string }> } } }> {
  const res = await fetch(`${url}/rpc`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "message/send",
      params: { message: { kind: "message", role: "user", messageId: crypto.randomUUID(), parts: [{ kind: "text", text }] } },
    }),
  });
  return ((await res.json()) as { result: Awaited<ReturnType<typeof send>> }).result;
}

async function getJson(url: string): Promise<unknown> {
  const res = await fetch(url);
  expect(res.status).toBe(200);
  return res.json();
}

describe("the starter plugin through the router's config", () => {
  test("action, provider, service, routes and events all work, and shutdown stops the service", async () => {
    const router = await testRouter({ config: { eliza: { plugins: [join(STARTER_DIR, "index.ts")] } }, env: {} });
    let service: StarterService | null = null;
    try {
      const eliza = router.agents.find("eliza") as ElizaAgent;
      expect(eliza.info.skills.map((s) => s.id)).toContain("HELLO_WORLD");
      service = eliza.runtime.getService<StarterService>("starter");
      expect(service).toBeInstanceOf(StarterService);
      expect(service?.running).toBe(true);
      expect(eliza.runtime.providers.map((p) => p.name)).toContain("HELLO_WORLD_PROVIDER");

      expect(await getJson(`${router.url}${ROUTES}/helloworld`)).toEqual({ message: "Hello World!" });
      const task = await send(router.url, "Say hello world, please");
      expect(task.status.state).toBe("completed");
      expect(task.status.message?.parts[0].text).toBe("Here it is.\n\nHello world!");
      // MESSAGE_RECEIVED and ACTION_COMPLETED (REPLY, then HELLO_WORLD) reached the plugin's handlers.
      expect(await getJson(`${router.url}${ROUTES}/status`)).toMatchObject({
        service: "starter",
        running: true,
        messagesReceived: 1,
        actionsCompleted: 2,
        greetings: 1,
      });
    } finally {
      await router.close();
    }
    expect(service?.running).toBe(false);
  });
});

describe("the starter plugin as an elizaOS plugin", () => {
  let project: string;

  beforeAll(async () => {
    await ensureBuilt();
    project = mkdtempSync(join(tmpdir(), "eliza-starter-port-"));
    writeFileSync(join(project, "package.json"), JSON.stringify({ name: "my-plugin", private: true, type: "module" }));
    mkdirSync(join(project, "node_modules"));
    symlinkSync(ROOT, join(project, "node_modules", "a2a-router"), "dir");
  }, 300_000);

  afterAll(() => rmSync(project, { recursive: true, force: true }));

  test("with only its import path changed it compiles, loads with --eliza-plugin and serves", async () => {
    const shipped = readFileSync(join(STARTER_DIR, "plugin.ts"), "utf8");
    // The plugin as written for elizaOS: nothing in it names this package but the import.
    const original = shipped.replaceAll('"a2a-router/eliza"', '"@elizaos/core"');
    expect(original).not.toContain("a2a-router");
    expect(original).toContain('from "@elizaos/core";');
    // The port: that one string replaced, nothing else.
    const ported = original.replaceAll('"@elizaos/core"', '"a2a-router/eliza"');
    expect(ported).toBe(shipped);
    writeFileSync(join(project, "plugin.ts"), ported);
    writeFileSync(
      join(project, "tsconfig.json"),
      JSON.stringify({
        compilerOptions: {
          target: "ES2022",
          module: "NodeNext",
          moduleResolution: "NodeNext",
          strict: true,
          skipLibCheck: true,
          typeRoots: [join(ROOT, "node_modules", "@types")],
          types: ["node"],
        },
        files: ["plugin.ts"],
      }),
    );
    const tsc = join(ROOT, "node_modules", "typescript", "bin", "tsc");
    await run(process.execPath, [tsc, "-p", project], { cwd: project }).catch((err: { stdout?: string }) => {
      throw new Error(`tsc failed on the ported starter plugin:\n${err.stdout ?? String(err)}`);
    });

    const router = await spawnRouter(["--store", "memory", "--eliza-plugin", join(project, "plugin.js")], { ELIZA_MODEL_PROVIDER: "local" });
    try {
      expect(await getJson(`${router.url}${ROUTES}/helloworld`)).toEqual({ message: "Hello World!" });
      const task = await send(router.url, "hello world");
      expect(task.status.message?.parts[0].text).toBe("Here it is.\n\nHello world!");
      expect(await getJson(`${router.url}${ROUTES}/status`)).toMatchObject({ running: true, messagesReceived: 1, greetings: 1 });
      // The plugin's `logger` writes through the router's own logger.
      expect(router.output()).toMatch(/"name":"a2a-router"[^\n]*"msg":"starter service starting"/);
    } finally {
      expect(await router.kill("SIGTERM")).toBe(0);
    }
    expect(router.output()).toMatch(/"greetings":1[^\n]*"msg":"starter service stopped"/);
  }, 180_000);
});
