import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, rmdirSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

/** The repository root (tests run with it as cwd). */
export const ROOT = resolve(process.cwd());
export const BIN = join(ROOT, "dist", "router", "bin.js");
const STAMP = join(ROOT, "dist", ".build-stamp");
const SOURCE_DIRS = ["router", "hub", "agents"];
const LOCK = join(tmpdir(), `a2a-router-build-${createHash("sha1").update(ROOT).digest("hex").slice(0, 12)}.lock`);
const STALE_LOCK_MS = 5 * 60_000;

function newestSource(dir: string): number {
  let newest = 0;
  if (!existsSync(dir)) return newest;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) newest = Math.max(newest, newestSource(path));
    else if (entry.name.endsWith(".ts")) newest = Math.max(newest, statSync(path).mtimeMs);
  }
  return newest;
}

function isFresh(): boolean {
  if (!existsSync(BIN) || !existsSync(STAMP)) return false;
  const built = statSync(STAMP).mtimeMs;
  return SOURCE_DIRS.every((d) => newestSource(join(ROOT, d)) <= built);
}

async function withLock<T>(body: () => T): Promise<T> {
  for (;;) {
    try {
      mkdirSync(LOCK);
      break;
    } catch {
      if (Date.now() - statSync(LOCK, { throwIfNoEntry: false })!.mtimeMs > STALE_LOCK_MS) rmdirSync(LOCK);
      // Another test file is building: wait for it (a short poll on a lock, not a verdict-deciding sleep).
      else await new Promise((r) => setTimeout(r, 200));
    }
  }
  try {
    return body();
  } finally {
    rmdirSync(LOCK);
  }
}

/**
 * Compiles the project into dist/ (tsconfig.build.json) unless dist is newer than every source, so the
 * CLI tests spawn the real binary. Type errors elsewhere do not stop tsc emitting; a missing bin does.
 */
export async function ensureBuilt(): Promise<string> {
  if (isFresh()) return BIN;
  await withLock(() => {
    if (isFresh()) return;
    const started = Date.now();
    try {
      execFileSync(process.execPath, [join(ROOT, "node_modules", "typescript", "bin", "tsc"), "-p", "tsconfig.build.json"], {
        cwd: ROOT,
        stdio: "pipe",
        timeout: 240_000,
      });
    } catch (err) {
      if (!existsSync(BIN)) throw new Error(`npm run build failed:\n${(err as { stdout?: Buffer }).stdout?.toString() ?? err}`);
    }
    writeFileSync(STAMP, "");
    const at = new Date(started);
    utimesSync(STAMP, at, at);
  });
  return BIN;
}
