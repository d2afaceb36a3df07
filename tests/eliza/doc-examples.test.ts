/**
 * The examples in docs/eliza.md and docs/eliza-plugins.md are read out of the docs and run, so what a user
 * copies and what the docs say it answers stay true: the local model's answers, a failed action, the
 * reloaded transcript, the character file, plugins in plain ESM JS (no imports) and in TypeScript
 * typed with `import type ... from "a2a-router/eliza"`, and plugin routes.
 */
import { afterAll, describe, expect, test } from "@jest/globals";
import { randomUUID } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { createElizaAgent, type ElizaAgent } from "../../agents/eliza/index.js";
import { MemoryStore } from "../../router/store/memory-store.js";
import { testRouter } from "../helpers/router.js";
import { codeBlock, readDoc, ROOT, section, unescapeNewlines } from "./doc-text.js";
import { collect, statusesOf, textOfStatus, turnContext } from "./helpers.js";

const dir = mkdtempSync(join(tmpdir(), "eliza-docs-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const elizaDoc = readDoc("eliza.md");
const pluginsDoc = readDoc("eliza-plugins.md");

/** Runs one turn; answers every status text (the last one is the final answer). */
async function turn(agent: ElizaAgent, text: string, contextId = randomUUID()): Promise<string[]> {
  const statuses = statusesOf(await collect(agent.execute(turnContext(text, contextId))));
  expect(statuses.at(-1)?.status.state).toBe("completed");
  return statuses.map((s) => textOfStatus(s) ?? "");
}

describe("docs/eliza.md", () => {
  const local = section(elizaDoc, "### `local`: the offline default", "### ");
  const rows = [...local.matchAll(/^\| `([^`]+)` \| `([^`]+)` \|$/gm)].map((m) => [m[1], unescapeNewlines(m[2])] as const);

  test("the local model's table lists what it answers", () => {
    expect(rows.length).toBeGreaterThanOrEqual(6);
    expect(rows.map(([said]) => said)).toEqual(expect.arrayContaining(["I need a holiday", "Play some jazz"]));
  });

  test.each(rows)("the default agent answers %j with what the doc says", async (said, answer) => {
    const agent = await createElizaAgent({ store: new MemoryStore(), env: {} });
    expect((await turn(agent, said)).at(-1)).toBe(answer);
    expect((await turn(agent, said)).at(-1)).toBe(answer); // every time
  });

  test("the ELIZA reflection quoted in the list is the one it gives", async () => {
    const quoted = /"I need a holiday" -> "([^"]+)"/.exec(local.replace(/\s*\n\s*/g, " "));
    expect(quoted).not.toBeNull();
    const agent = await createElizaAgent({ store: new MemoryStore(), env: {} });
    expect((await turn(agent, "I need a holiday")).at(-1)).toBe(quoted![1]);
  });

  test("the failed-action example: a booking with too many passengers", async () => {
    const said = "book a flight from SFO to JFK on 2025-03-15 for 20 passengers";
    expect(elizaDoc.replace(/\s*\n\s*/g, " ")).toContain(`For example, "${said}" ends with`);
    const shown = codeBlock(elizaDoc, "I'll book that flight for you.").trimEnd();
    const agent = await createElizaAgent({ store: new MemoryStore(), env: {} });
    expect((await turn(agent, said)).at(-1)).toBe(shown);
  });

  test("the reloaded transcript quoted for Play some jazz", async () => {
    const quoted = /So "Play some jazz" reloads as\s+`([^`]+)`/.exec(elizaDoc);
    expect(quoted).not.toBeNull();
    const agent = await createElizaAgent({ store: new MemoryStore(), env: {}, character: { name: "Eliza", plugins: ["example"] } });
    const contextId = randomUUID();
    await turn(agent, "Play some jazz", contextId);
    const { messages } = await agent.readConversation(contextId);
    expect(messages.at(-1)?.text).toBe(unescapeNewlines(quoted![1]));
  });

  test("the character file example loads, holds no placeholder template, and answers", async () => {
    const json = /```json\n([\s\S]*?)```/.exec(section(elizaDoc, "## The character file", "## "))?.[1];
    expect(json).toBeDefined();
    const character = JSON.parse(json!) as Record<string, unknown>;
    expect(JSON.stringify(character.templates ?? {})).not.toContain("...");
    const path = join(dir, "character.json");
    writeFileSync(path, json!);
    const agent = await createElizaAgent({ store: new MemoryStore(), env: {}, characterPath: path });
    expect(agent.info.name).toBe("Eliza");
    expect((await turn(agent, "Who are you?")).at(-1)).toBe("I am Eliza.");
  });

  test("embedding imports createElizaAgent from the package's ./eliza export", () => {
    expect(elizaDoc).toContain('import { createElizaAgent } from "a2a-router/eliza";');
  });

  test("no internal material is referenced", () => {
    for (const doc of [elizaDoc, pluginsDoc]) expect(doc).not.toMatch(/seeds?\b|seeds\/|CONTRACT section/i);
  });
});

describe("docs/eliza-plugins.md", () => {
  test("shout.mjs (plain ESM JS, no imports) loads via pluginPaths and says what the doc says", async () => {
    const source = codeBlock(pluginsDoc, "// shout.mjs");
    expect(source).not.toMatch(/^\s*import\b/m);
    const path = join(dir, "shout.mjs");
    writeFileSync(path, source);
    const agent = await createElizaAgent({ store: new MemoryStore(), env: {}, pluginPaths: [path] });
    const final = "HERE IT COMES\n\nYELL HELLO! YELL HELLO!";
    expect(unescapeNewlines(pluginsDoc)).toContain(`so the\nfinal answer is \`${final}\``);
    expect(await turn(agent, "yell hello")).toEqual(["HERE IT COMES\n\nTaking a deep breath...", final, final]);
  });

  test("shout.mjs: the parameter error the doc quotes", async () => {
    expect(pluginsDoc).toContain('(`SHOUT: parameter "times" must be <= 5`,');
    const path = join(dir, "shout-bounds.mjs");
    writeFileSync(path, codeBlock(pluginsDoc, "// shout.mjs"));
    const agent = await createElizaAgent({ store: new MemoryStore(), env: {}, pluginPaths: [path] });
    const statuses = statusesOf(await collect(agent.execute(turnContext("yell hello times: 9", randomUUID()))));
    expect(textOfStatus(statuses.at(-1)!)).toBe('HERE IT COMES\n\nSHOUT failed: parameter "times" must be <= 5');
    expect(statuses.at(-1)?.metadata?.actionResults).toContainEqual({ action: "SHOUT", success: false, error: 'SHOUT: parameter "times" must be <= 5' });
  });

  test("a TypeScript plugin typed from a2a-router/eliza loads via pluginPaths", async () => {
    // tests/eliza/fixtures/greet-plugin.ts is the doc's greet.ts; `npm run typecheck` checks its types
    // through the package's own "./eliza" export.
    const fixture = resolve(ROOT, "tests/eliza/fixtures/greet-plugin.ts");
    const agent = await createElizaAgent({ store: new MemoryStore(), env: {}, pluginPaths: [fixture] });
    const quoted = /say `greet who: Ada`: the final answer is `([^`]+)`/.exec(pluginsDoc);
    expect(quoted).not.toBeNull();
    expect((await turn(agent, "greet who: Ada")).at(-1)).toBe(unescapeNewlines(quoted![1]));
  });

  test("the Routes example serves what the doc says, under /api/plugins/notes/", async () => {
    const routes = codeBlock(pluginsDoc, "routes: [");
    expect(pluginsDoc).toContain("A plugin named `notes` serves `GET /api/plugins/notes/items/7` and `POST /api/plugins/notes/notes`");
    const path = join(dir, "notes.mjs");
    writeFileSync(path, `export default { name: "notes", ${routes} };\n`);
    const agent = await createElizaAgent({ store: new MemoryStore(), env: {}, pluginPaths: [path] });
    const router = await testRouter({ eliza: false, hostedAgents: [agent], routes: agent.httpRoutes() });
    try {
      const item = await fetch(`${router.url}/api/plugins/notes/items/7`);
      expect(await item.json()).toEqual({ id: "7", agent: "Eliza" });
      const note = await fetch(`${router.url}/api/plugins/notes/notes`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ text: "hi" }),
      });
      expect([note.status, await note.json()]).toEqual([201, { saved: { text: "hi" } }]);
    } finally {
      await router.close();
      await agent.close();
    }
  });

  test("the fixture is the doc's greet.ts", () => {
    const fixture = readFileSync(resolve(ROOT, "tests/eliza/fixtures/greet-plugin.ts"), "utf8");
    const doc = codeBlock(pluginsDoc, "// greet.ts: compile with tsc (module NodeNext), load greet.js with --eliza-plugin ./greet.js");
    expect(fixture.slice(fixture.indexOf("import type"))).toBe(doc.slice(doc.indexOf("import type")));
  });
});
