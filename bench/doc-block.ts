/**
 * The generated block of docs/benchmarks.md: what `npm run bench` writes between its two markers, and nothing
 * outside them (the rest of the file is written by hand and read by maintainers first). The block says which
 * build it measured, so the hand-kept table of figures at the top can name the run it was copied from.
 */
import { execFileSync } from "node:child_process";
import type { Section } from "./lib.js";

export const BEGIN = "<!-- bench:begin (written by npm run bench) -->";
export const END = "<!-- bench:end -->";

export interface RunInfo {
  machine: string;
  /** The git commit of the tree that was built, or "unknown"; see {@link buildLabel}. */
  build: string;
  command: string;
  rounds: number;
  seconds: number;
  at: Date;
}

/**
 * The measured build: the working tree's commit (with a mark when it has uncommitted changes, since
 * `npm run bench` builds what is on disk), and the other build's path when BENCH_ROUTER_DIST points the routers
 * at one. "unknown" outside a git checkout (a container image).
 */
export function buildLabel(routerDist: string | undefined = process.env.BENCH_ROUTER_DIST): string {
  let own = "unknown";
  try {
    const git = (...args: string[]) => execFileSync("git", args, { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }).trim();
    own = git("rev-parse", "--short", "HEAD") + (git("status", "--porcelain", "--untracked-files=no") ? " with uncommitted changes" : "");
  } catch {
    // not a git checkout
  }
  return routerDist ? `routers from BENCH_ROUTER_DIST=${routerDist}, baselines from ${own}` : own;
}

/** The block, markers included. */
export function renderBlock(run: RunInfo, sections: Section[]): string {
  return [
    BEGIN,
    `Last run: ${run.at.toISOString().slice(0, 16).replace("T", " ")} UTC; build ${run.build}; ${run.machine}; \`${run.command}\`; ${run.rounds} round(s), medians; ${run.seconds.toFixed(0)} s in all.`,
    "",
    ...sections.flatMap((s) => [`**${s.title}**`, "", "```", ...s.lines, "```", ""]),
    END,
  ].join("\n");
}

/** `doc` with its block replaced by `block` (appended when the doc has none); the rest is kept byte for byte. */
export function spliceBlock(doc: string, block: string): string {
  const at = doc.indexOf(BEGIN);
  const end = doc.indexOf(END, at);
  if (at < 0 || end < 0) return `${doc.trimEnd()}\n\n${block}\n`;
  return doc.slice(0, at) + block + doc.slice(end + END.length);
}
