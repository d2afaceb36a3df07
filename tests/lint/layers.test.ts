/**
 * The lint configuration stays meaningful: the layer rules (.dependency-cruiser.cjs) run on a small tree
 * (tests/lint/fixtures/layers) that breaks each of them once and also holds imports they allow, and Biome's
 * per-folder rules run on snippets. A rule that silently stops matching (a renamed folder, a broken
 * pattern) fails here, and so does a rule that starts flagging what the architecture allows.
 */
import { beforeAll, describe, expect, test } from "@jest/globals";
import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = join(fileURLToPath(new URL(".", import.meta.url)), "..", "..");
const FIXTURE = join(ROOT, "tests", "lint", "fixtures", "layers");
const DEPCRUISE = join(ROOT, "node_modules", "dependency-cruiser", "bin", "dependency-cruiser.mjs");
const BIOME = join(ROOT, "node_modules", "@biomejs", "biome", "bin", "biome");

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function run(args: string[], options: { cwd: string; input?: string }): Promise<Run> {
  return new Promise((resolve) => {
    const child = execFile(process.execPath, args, { cwd: options.cwd, maxBuffer: 16 * 1024 * 1024 }, (err, stdout, stderr) => {
      const code = err ? (typeof err.code === "number" ? err.code : 1) : 0;
      resolve({ code, stdout, stderr });
    });
    child.stdin!.end(options.input ?? "");
  });
}

interface Violation {
  rule: { name: string };
  from: string;
  to: string;
}

/** Depcruise with the repository's own rules, run from the fixture as if it were the repository root. */
async function cruiseFixture(): Promise<{ run: Run; violations: string[] }> {
  const dir = mkdtempSync(join(tmpdir(), "a2a-router-lint-"));
  try {
    // The repository's rules and options, only with its tsconfig named by absolute path and no cache.
    const config = join(dir, "fixture.dependency-cruiser.cjs");
    const base = JSON.stringify(join(ROOT, ".dependency-cruiser.cjs"));
    const tsconfig = JSON.stringify(join(ROOT, "tsconfig.json"));
    writeFileSync(
      config,
      `const base = require(${base});\nmodule.exports = { ...base, options: { ...base.options, cache: false, tsConfig: { fileName: ${tsconfig} } } };\n`,
    );
    const result = await run([DEPCRUISE, "--config", config, "--no-cache", "--output-type", "json", "router", "hub", "agents"], { cwd: FIXTURE });
    const report = JSON.parse(result.stdout) as { summary: { violations: Violation[] } };
    // A package is named by its folder under node_modules, wherever that node_modules is.
    const name = (path: string) => path.replace(/^.*node_modules\/([^/]+)\/.*$/, "npm:$1");
    const violations = report.summary.violations.map((v) => `${v.rule.name}: ${v.from} -> ${name(v.to)}`).sort();
    return { run: result, violations };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe("layer rules (.dependency-cruiser.cjs)", () => {
  let cruised: { run: Run; violations: string[] };
  beforeAll(async () => {
    cruised = await cruiseFixture();
  });

  test("every rule catches its violation in the fixture, and nothing the architecture allows is flagged", () => {
    // The json reporter exits 0 either way (the err reporter `npm run lint` uses exits with the error count).
    expect(cruised.run.stderr).toBe("");
    expect(cruised.violations).toEqual(
      [
        // Modules: a run-time cycle (the type-only cycle shape-a <-> shape-b is not one).
        "no-circular: router/store/log-a.ts -> router/store/log-b.ts",
        // Folders: rpc <-> dialects (a dialect importing RpcError), core <-> rpc (the engine importing it), and
        // hub <-> router/http (a top-level folder is checked too).
        "no-folder-cycles: hub -> router/http",
        "no-folder-cycles: router/http -> hub",
        "no-folder-cycles: router/core -> router/rpc",
        "no-folder-cycles: router/dialects -> router/rpc",
        "no-folder-cycles: router/rpc -> router/core",
        "no-folder-cycles: router/rpc -> router/dialects",
        "below-faces-no-face: router/core/engine.ts -> router/rpc/errors.ts",
        "below-faces-no-face: router/dialects/v10.ts -> router/rpc/errors.ts",
        "below-service-no-service: router/upstream/read.ts -> router/service/task-service.ts",
        "core-is-the-bottom: router/core/engine.ts -> router/rpc/errors.ts",
        "core-is-the-bottom: router/core/engine.ts -> router/sse/format.ts",
        "core-no-transport: router/core/engine.ts -> npm:express",
        "core-no-transport: router/core/engine.ts -> router/rpc/errors.ts",
        "core-no-transport: router/core/engine.ts -> router/sse/format.ts",
        "service-no-transport: router/service/task-service.ts -> http",
        "handler-no-face: router/handler/request-handler.ts -> router/faces/rest/route.ts",
        "faces-apart: router/faces/rest/errors.ts -> router/rpc/errors.ts",
        "hub-no-client-face: hub/origin.ts -> router/http/origin.ts",
        "hub-plugged-in-at-the-root: router/upstream/read.ts -> hub/protocol.ts",
        "hub-plugged-in-at-the-root: router/http/origin.ts -> hub/protocol.ts",
        "sdk-wire-only: agents/sdk/agent.ts -> router/core/engine.ts",
        "cli-is-a-client: router/cli/client.ts -> router/service/task-service.ts",
      ].sort(),
    );
  });

  test("every forbidden rule of the configuration has a case in the fixture", () => {
    const require = createRequire(import.meta.url);
    const config = require(join(ROOT, ".dependency-cruiser.cjs")) as { forbidden: Array<{ name: string }> };
    const caught = new Set(cruised.violations.map((v) => v.slice(0, v.indexOf(":"))));
    expect(config.forbidden.map((r) => r.name).filter((name) => !caught.has(name))).toEqual([]);
  });
});

describe("per-folder lint rules (biome.jsonc)", () => {
  const source = "export function f(x: any): void {\n  console.log(x);\n}\n";

  /** The rules Biome reports for `source` at each path, with the repository's biome.jsonc (without its VCS part). */
  async function rulesAt(paths: string[]): Promise<Record<string, string[]>> {
    const dir = mkdtempSync(join(tmpdir(), "a2a-router-biome-"));
    try {
      const jsonc = readFileSync(join(ROOT, "biome.jsonc"), "utf8").replace(/^\s*\/\/.*$/gm, "");
      const { $schema: _schema, vcs: _vcs, ...config } = JSON.parse(jsonc) as Record<string, unknown>;
      writeFileSync(join(dir, "biome.json"), JSON.stringify(config));
      for (const path of paths) {
        mkdirSync(join(dir, dirname(path)), { recursive: true });
        writeFileSync(join(dir, path), source);
      }
      const result = await run([BIOME, "lint", "--reporter=json", ...paths], { cwd: dir });
      const report = JSON.parse(result.stdout) as { diagnostics: Array<{ category: string; location: { path: string | { file: string } } }> };
      const rules: Record<string, string[]> = Object.fromEntries(paths.map((p) => [p, []]));
      for (const d of report.diagnostics) {
        const path = typeof d.location.path === "string" ? d.location.path : d.location.path.file;
        rules[path]!.push(d.category);
      }
      for (const list of Object.values(rules)) list.sort();
      return rules;
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }

  test("library code neither prints with console nor uses an explicit any; the CLI prints by design; tests may read wire JSON as any", async () => {
    const library = ["lint/suspicious/noConsole", "lint/suspicious/noExplicitAny"];
    expect(
      await rulesAt(["router/core/x.ts", "hub/x.ts", "agents/eliza/x.ts", "agents/sdk/x.ts", "router/cli/x.ts", "router/bin.ts", "tests/x.test.ts"]),
    ).toEqual({
      "router/core/x.ts": library,
      "hub/x.ts": library,
      "agents/eliza/x.ts": library,
      "agents/sdk/x.ts": library,
      "router/cli/x.ts": ["lint/suspicious/noExplicitAny"],
      "router/bin.ts": ["lint/suspicious/noExplicitAny"],
      "tests/x.test.ts": [],
    });
  });
});
