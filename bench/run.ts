/**
 * `npm run bench [-- --quick] [-- --only relay,latency]`: every scenario of docs/benchmarks.md, each run
 * against its baseline in the same run (alternating, medians of BENCH_ROUNDS rounds), routers and baselines
 * as real child processes on loopback. Prints as it goes; a full run (not `--only`, not `--quick`, whose
 * shorter measurements are not the targets' figures) then rewrites the generated block of docs/benchmarks.md
 * with the date, the build, the machine and the command (bench/doc-block.ts). Never part of CI, never a timed
 * test.
 */
import { readFileSync, writeFileSync, existsSync } from "node:fs";
import { cpus } from "node:os";
import { join } from "node:path";
import { buildLabel, renderBlock, spliceBlock } from "./doc-block.js";
import { log, QUICK, ROUNDS, type Section } from "./lib.js";
import { relay } from "./relay.js";
import { latency } from "./latency.js";
import { idle } from "./idle.js";
import { slowReader } from "./slow-reader.js";
import { hop } from "./hop.js";
import { growth } from "./growth.js";
import { cluster } from "./cluster.js";
import { catchUp } from "./catch-up.js";
import { faces } from "./faces.js";
import { clusterProc } from "./cluster-proc.js";

const SCENARIOS: Record<string, () => Promise<Section>> = {
  relay,
  latency,
  idle,
  "slow-reader": slowReader,
  hop,
  "catch-up": catchUp,
  growth,
  cluster,
  "cluster-proc": clusterProc,
  faces,
};
const onlyAt = process.argv.indexOf("--only");
const only = onlyAt > 0 ? process.argv[onlyAt + 1]!.split(",") : Object.keys(SCENARIOS);
const DOC = join(process.cwd(), "docs", "benchmarks.md");

const machine = `${cpus().length} x ${cpus()[0]?.model.trim() ?? "cpu"}, Node ${process.version}, ${process.platform}`;
const command = `npm run bench${QUICK ? " -- --quick" : ""}${onlyAt > 0 ? ` -- --only ${only.join(",")}` : ""}`;
log(`a2a-router bench: ${machine}; ${ROUNDS} round(s) per measurement${QUICK ? " (quick)" : ""}\n`);
const sections: Section[] = [];
const started = Date.now();
for (const name of only) {
  const scenario = SCENARIOS[name];
  if (!scenario) throw new Error(`unknown scenario ${name}; known: ${Object.keys(SCENARIOS).join(", ")}`);
  log(`${name}:`);
  const t0 = Date.now();
  try {
    sections.push(await scenario());
  } catch (err) {
    sections.push({ title: name, lines: [`FAILED: ${(err as Error).message}`] });
    log(`  FAILED: ${(err as Error).stack}`);
  }
  log(`  (${((Date.now() - t0) / 1000).toFixed(0)} s)\n`);
}

const block = renderBlock({ machine, build: buildLabel(), command, rounds: ROUNDS, seconds: (Date.now() - started) / 1000, at: new Date() }, sections);
const doc = existsSync(DOC) ? readFileSync(DOC, "utf8") : "# Benchmarks\n";
if (!process.env.BENCH_NO_DOC && onlyAt < 0 && !QUICK) writeFileSync(DOC, spliceBlock(doc, block));
log(sections.map((s) => `${s.title}\n${s.lines.map((l) => "  " + l).join("\n")}`).join("\n\n"));
process.exit(0);
