/** Start-up: character files, plugin files, the model choice. A bad one is ONE line naming file and problem. */
import { afterAll, describe, expect, test } from "@jest/globals";
import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { createElizaAgent, ElizaStartupError } from "../../agents/eliza/index.js";
import { modelFromEnv } from "../../agents/eliza/models/index.js";
import { MemoryStore } from "../../router/store/memory-store.js";
import { collect, statusesOf, textOfStatus, turnContext } from "./helpers.js";

const dir = mkdtempSync(join(tmpdir(), "eliza-load-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function file(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

async function failure(options: Parameters<typeof createElizaAgent>[0]): Promise<string> {
  try {
    await createElizaAgent(options);
  } catch (err) {
    const message = (err as Error).message;
    expect(message).not.toContain("\n");
    expect(err).toBeInstanceOf(ElizaStartupError);
    expect((err as ElizaStartupError).exitCode).toBe(2);
    return message;
  }
  throw new Error("createElizaAgent did not reject");
}

const store = new MemoryStore();

describe("character files", () => {
  test.each([
    ["bad-json.json", "{ name: ", /^character file \S+bad-json\.json: not valid JSON: /],
    ["no-name.json", '{"bio": "x"}', /^character file \S+no-name\.json: "name" is required$/],
    ["tpl.json", '{"name": "A", "templates": {"messageHandlerTemplate": 3}}', /: "templates\.messageHandlerTemplate" must be string$/],
    ["bio.json", '{"name": "A", "bio": 3}', /: "bio" must be a string or an array of strings$/],
    ["examples.json", '{"name": "A", "messageExamples": [[{"name": "u"}]]}', /: "messageExamples\[0\]\[0\]\.content" is required$/],
  ])("%s is refused", async (name, text, expected) => {
    expect(await failure({ store, env: {}, characterPath: file(name, text) })).toMatch(expected);
  });

  test("a missing file is refused", async () => {
    const path = join(dir, "nope.json");
    expect(await failure({ store, env: {}, characterPath: path })).toBe(
      `character file ${path}: cannot read it: ENOENT: no such file or directory, open '${path}'`,
    );
  });

  test("a good file sets the name, system prompt and templates", async () => {
    const path = file("ok.json", JSON.stringify({ name: "Robo", bio: ["a", "b"], system: "Be robotic.", plugins: ["@elizaos/plugin-bootstrap"] }));
    const agent = await createElizaAgent({ store, env: {}, characterPath: path });
    expect(agent.info.name).toBe("Robo");
    expect(agent.info.description).toBe("a b");
    expect(agent.info.skills.map((s) => s.id)).toEqual(["chat"]);
  });
});

describe("plugin files", () => {
  const goodPlugin = `
    export default {
      name: "shout",
      actions: [{
        name: "SHOUT",
        description: "Shouts the message back",
        similes: ["yell"],
        parameters: [{ name: "times", description: "how often", schema: { type: "number", default: 2 } }],
        handler: async (runtime, message, state, options, callback) => {
          await callback({ text: (message.content.text.toUpperCase() + "!").repeat(options.parameters.times) });
          return { success: true };
        },
      }],
      init: async (config, runtime) => { runtime.character.templates = { ...runtime.character.templates, loadedBy: "shout" }; },
    };`;

  test("an ES module plugin is loaded, registered, initialised and used", async () => {
    const path = file("shout.mjs", goodPlugin);
    const agent = await createElizaAgent({ store, env: {}, character: { name: "P" }, pluginPaths: [path] });
    expect(agent.info.skills.map((s) => s.id)).toEqual(["chat", "SHOUT"]);
    expect(agent.runtime.character.templates?.loadedBy).toBe("shout");
    const updates = await collect(agent.execute(turnContext("yell hi", randomUUID())));
    expect(textOfStatus(statusesOf(updates).at(-1)!)).toBe("On it.\n\nYELL HI!YELL HI!");
  });

  test("the example plugin loads from its file too", async () => {
    const here = dirname(fileURLToPath(import.meta.url));
    const path = resolve(here, "../../agents/eliza/plugins/example/index.ts");
    const agent = await createElizaAgent({ store, env: {}, character: { name: "P" }, pluginPaths: [path] });
    expect(agent.info.skills.map((s) => s.id)).toEqual(["chat", "PLAY_MUSIC", "BOOK_FLIGHT"]);
  });

  test.each([
    // A module that fails while loading. (A syntax error takes the same path in Node, but jest 29's ESM
    // loader crashes its worker on one, so the test uses an evaluation error.)
    ["throws.mjs", 'throw new Error("top-level failure\\n  on two lines");', /^plugin file \S+throws\.mjs: cannot load it: top-level failure on two lines$/],
    ["nodefault.mjs", "export const x = 1;", /^plugin file \S+nodefault\.mjs: has no default export \(expected a Plugin object\)$/],
    ["noname.mjs", "export default { actions: [] };", /^plugin file \S+noname\.mjs: the plugin has no "name"$/],
    ["nohandler.mjs", 'export default { name: "p", actions: [{ name: "FOO", description: "d" }] };', /: actions\[0\] \(FOO\) has no "handler" function$/],
    ["actions.mjs", 'export default { name: "p", actions: {} };', /: "actions" must be an array$/],
    ["provider.mjs", 'export default { name: "p", providers: [{ name: "X" }] };', /: providers\[0\] \(X\) has no "get" function$/],
    [
      "schema.mjs",
      'export default { name: "p", actions: [{ name: "FOO", description: "d", handler: async () => {}, parameters: [{ name: "n", description: "d", schema: { type: "strnig" } }] }] };',
      /^plugin file \S+schema\.mjs: action FOO: parameter "n" has an invalid schema: /,
    ],
    [
      "dup.mjs",
      'export default { name: "p", actions: [{ name: "REPLY", description: "d", handler: async () => {} }] };',
      /: action REPLY is already registered$/,
    ],
    ["init.mjs", 'export default { name: "p", init: async () => { throw new Error("no token"); } };', /^plugin file \S+init\.mjs: init failed: no token$/],
  ])("%s is refused", async (name, text, expected) => {
    expect(await failure({ store, env: {}, character: { name: "P" }, pluginPaths: [file(name, text)] })).toMatch(expected);
  });

  test("a missing plugin file is refused", async () => {
    expect(await failure({ store, env: {}, pluginPaths: [join(dir, "missing.mjs")] })).toMatch(/^plugin file \S+missing\.mjs: cannot load it: /);
  });
});

describe("model choice", () => {
  test("local by default, openai when OPENAI_BASE_URL is set, explicit provider wins", () => {
    expect(modelFromEnv({}).provider).toBe("local");
    expect(modelFromEnv({ OPENAI_BASE_URL: "http://127.0.0.1:1/v1" }).provider).toBe("openai");
    expect(modelFromEnv({ OPENAI_BASE_URL: "http://127.0.0.1:1/v1", ELIZA_MODEL_PROVIDER: "local" }).provider).toBe("local");
    expect(modelFromEnv({ ELIZA_MODEL_PROVIDER: "openai" }).provider).toBe("openai");
  });

  test("bad values are refused naming the variable", async () => {
    expect(await failure({ store, env: { ELIZA_MODEL_PROVIDER: "gpt" } })).toBe('ELIZA_MODEL_PROVIDER must be one of local, openai; got "gpt"');
    expect(await failure({ store, env: { OPENAI_BASE_URL: "not a url" } })).toBe('OPENAI_BASE_URL is not a URL: "not a url"');
  });
});
