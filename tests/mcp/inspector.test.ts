/** CONTRACT 16: the MCP Inspector's CLI (`@modelcontextprotocol/inspector-cli`) lists and calls the router's tools. */
import { afterAll, beforeAll, expect, test } from "@jest/globals";
import { execFile } from "node:child_process";
import { createRequire } from "node:module";
import { dirname } from "node:path";
import { promisify } from "node:util";
import type { RunningRouter } from "../../router/index.js";
import { testRouter } from "../helpers/router.js";

const run = promisify(execFile);
const CLI = createRequire(import.meta.url).resolve("@modelcontextprotocol/inspector-cli/build/cli.js");

let router: RunningRouter;

beforeAll(async () => {
  router = await testRouter({ config: { apiKeys: ["inspector-key"] } });
});

afterAll(async () => {
  await router.close();
});

/** Runs the Inspector in CLI mode against the router's /mcp; its stdout as JSON. */
async function inspect(...args: string[]): Promise<Record<string, any>> {
  const { stdout } = await run(
    process.execPath,
    [CLI, "--cli", `${router.url}/mcp`, "--transport", "http", "--header", "Authorization: Bearer inspector-key", ...args],
    {
      timeout: 30_000,
      // The CLI looks for its own package.json as "../package.json" from the working directory.
      cwd: dirname(CLI),
    },
  );
  return JSON.parse(stdout) as Record<string, any>;
}

test("the Inspector lists the agents as tools and calls one", async () => {
  const listed = await inspect("--method", "tools/list");
  expect(listed.tools.map((t: { name: string }) => t.name)).toEqual(expect.arrayContaining(["echo", "eliza"]));
  const called = await inspect("--method", "tools/call", "--tool-name", "echo", "--tool-arg", "message=hello inspector");
  expect(called.content).toEqual([{ type: "text", text: "hello inspector" }]);
  expect(called.structuredContent).toMatchObject({ state: "completed" });
});
