/**
 * `a2a-router/eliza` from outside the checkout, the way docs/eliza.md and docs/eliza-plugins.md tell a user
 * to use it: a project whose node_modules/a2a-router links to this checkout (what
 * `npm install /path/to/a2a-router` makes) and the built dist/. The docs' own code blocks are what runs:
 * greet.ts typed with `import type ... from "a2a-router/eliza"` compiled by tsc, terse.mjs importing the
 * default template, and embed.mjs serving an embedded eliza through the router.
 */
import { afterAll, beforeAll, describe, expect, test } from "@jest/globals";
import { execFile, spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { createElizaAgent } from "../../agents/eliza/index.js";
import type { TextModel } from "../../agents/eliza/models/text-model.js";
import type { GenerateTextParams } from "../../agents/eliza/types.js";
import { MemoryStore } from "../../router/store/memory-store.js";
import { ensureBuilt, ROOT } from "../cli/build.js";
import { codeBlock, readDoc } from "./doc-text.js";
import { collect, statusesOf, textOfStatus, turnContext } from "./helpers.js";

const run = promisify(execFile);
const elizaDoc = readDoc("eliza.md");
const pluginsDoc = readDoc("eliza-plugins.md");
let project: string;

beforeAll(async () => {
  await ensureBuilt();
  project = mkdtempSync(join(tmpdir(), "eliza-user-project-"));
  writeFileSync(join(project, "package.json"), JSON.stringify({ name: "my-agent", private: true, type: "module" }));
  mkdirSync(join(project, "node_modules"));
  symlinkSync(ROOT, join(project, "node_modules", "a2a-router"), "dir");
}, 300_000);

afterAll(() => rmSync(project, { recursive: true, force: true }));

function write(name: string, text: string): string {
  const path = join(project, name);
  writeFileSync(path, text);
  return path;
}

/** Answers like a real model would and records the prompts it was given. */
class RecordingModel implements TextModel {
  readonly provider = "local" as const;
  readonly prompts: string[] = [];
  async generate(_type: string, params: GenerateTextParams): Promise<string> {
    this.prompts.push(params.prompt);
    const out = "<response><thought>t</thought><actions>REPLY</actions><providers></providers><text>Fine.</text></response>";
    params.onStreamChunk?.(out);
    return out;
  }
}

describe("a2a-router/eliza installed in another project", () => {
  test("greet.ts, typed with import type from a2a-router/eliza, compiles with tsc and loads", async () => {
    write("greet.ts", codeBlock(pluginsDoc, "// greet.ts: compile with tsc (module NodeNext), load greet.js with --eliza-plugin ./greet.js"));
    write(
      "tsconfig.json",
      JSON.stringify({
        compilerOptions: { target: "ES2022", module: "NodeNext", moduleResolution: "NodeNext", strict: true, skipLibCheck: true, types: [] },
        files: ["greet.ts"],
      }),
    );
    const tsc = join(ROOT, "node_modules", "typescript", "bin", "tsc");
    await run(process.execPath, [tsc, "-p", project], { cwd: project }).catch((err: { stdout?: string }) => {
      throw new Error(`tsc failed on the doc's greet.ts:\n${err.stdout ?? String(err)}`);
    });
    const agent = await createElizaAgent({ store: new MemoryStore(), env: {}, pluginPaths: [join(project, "greet.js")] });
    const statuses = statusesOf(await collect(agent.execute(turnContext("greet who: Ada", randomUUID()))));
    expect(textOfStatus(statuses.at(-1)!)).toBe("On it.\n\nHello, Ada! I am Eliza.");
  }, 120_000);

  test("terse.mjs imports the default template from a2a-router/eliza and extends it", async () => {
    const path = write("terse.mjs", codeBlock(elizaDoc, "// terse.mjs: load it with --eliza-plugin ./terse.mjs"));
    const model = new RecordingModel();
    const agent = await createElizaAgent({ store: new MemoryStore(), env: {}, model, pluginPaths: [path] });
    const statuses = statusesOf(await collect(agent.execute(turnContext("hi", randomUUID()))));
    expect(textOfStatus(statuses.at(-1)!)).toBe("Fine.");
    const prompt = model.prompts.at(-1)!;
    expect(prompt).toContain("Keep the <text> of your answer under 30 words.\n</instructions>");
    expect(prompt).toContain("<params>"); // the rest of the default is still there
    expect(prompt).toContain("<actionNames>\nREPLY, IGNORE, NONE, PLAY_MUSIC, BOOK_FLIGHT\n</actionNames>");
  });

  test("embed.mjs serves an embedded eliza with a plugin file and a plugin object", async () => {
    write("me.json", JSON.stringify({ name: "Me" }));
    write("shout.mjs", codeBlock(pluginsDoc, "// shout.mjs"));
    const embed = codeBlock(elizaDoc, "// embed.mjs: a router that serves your own eliza (character, plugin files and plugin objects)");
    expect(embed).toContain('import { createElizaAgent } from "a2a-router/eliza";');
    // The doc's script on a free port, then one request per plugin and a clean close.
    const script = `${embed.replace("port: 8080,", "port: 0,")}
const ask = async (text) => {
  const res = await fetch(router.url + "/", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "message/send", params: {
      message: { kind: "message", role: "user", messageId: crypto.randomUUID(), parts: [{ kind: "text", text }] } } }),
  });
  return (await res.json()).result;
};
const answers = [];
for (const text of ["wave", "yell hello"]) {
  const task = await ask(text);
  answers.push([task.status.state, task.status.message.parts[0].text]);
}
console.log(JSON.stringify({ name: eliza.info.name, answers }));
await router.close();
`;
    expect(script).toContain("port: 0,");
    write("embed.mjs", script);
    const env = { ...process.env };
    for (const key of ["OPENAI_BASE_URL", "ELIZA_MODEL_PROVIDER"]) delete env[key]; // the offline local model
    const child = spawn(process.execPath, ["embed.mjs"], { cwd: project, env, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (d: string) => (stdout += d));
    child.stderr.setEncoding("utf8").on("data", (d: string) => (stderr += d));
    const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
    expect({ code, stderr }).toEqual({ code: 0, stderr: "" });
    const lines = stdout.trim().split("\n");
    expect(lines[0]).toMatch(/^eliza answers at http:\/\/\S+:\d+$/);
    expect(JSON.parse(lines[1])).toEqual({
      name: "Me",
      answers: [
        ["completed", "On it.\n\n👋"],
        ["completed", "HERE IT COMES\n\nYELL HELLO! YELL HELLO!"],
      ],
    });
  }, 60_000);
});
