import { spawn, type ChildProcess } from "node:child_process";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { ROUTER_NODE_FLAGS } from "../../router/node-flags.js";

export const ROOT = join(fileURLToPath(new URL(".", import.meta.url)), "..", "..");
export const BIN = join(ROOT, "dist", "router", "bin.js");

export interface RouterProcess {
  child: ChildProcess;
  url: string;
  /** Everything it printed so far. */
  output(): string;
  /** Resolves with the exit code. */
  exited: Promise<number | null>;
  kill(signal?: NodeJS.Signals): Promise<number | null>;
}

/**
 * Runs the compiled binary (`npm run build` first) and waits for its "listening" log line. `nodeFlags`: the
 * Node flags it runs with, by default those npm start gives it.
 */
export async function spawnRouter(args: string[], env: NodeJS.ProcessEnv = {}, nodeFlags: readonly string[] = ROUTER_NODE_FLAGS): Promise<RouterProcess> {
  const child = spawn(process.execPath, [...nodeFlags, BIN, "serve", "--port", "0", ...args], {
    cwd: ROOT,
    env: { ...process.env, LOG_LEVEL: "info", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  const exited = new Promise<number | null>((r) => child.once("exit", (code) => r(code)));
  const url = await new Promise<string>((resolve, reject) => {
    const onData = (d: Buffer) => {
      out += d;
      const m = out.match(/"url":"(http:\/\/[^"]+)"[^\n]*"msg":"a2a-router listening"|"msg":"a2a-router listening"[^\n]*"url":"(http:\/\/[^"]+)"/);
      if (m) resolve((m[1] ?? m[2])!);
    };
    child.stdout!.on("data", onData);
    child.stderr!.on("data", (d) => (out += d));
    void exited.then((code) => reject(new Error(`router exited with ${code} before listening:\n${out}`)));
  });
  return {
    child,
    url,
    output: () => out,
    exited,
    kill(signal = "SIGTERM") {
      child.kill(signal);
      return exited;
    },
  };
}

/** Runs the binary to completion (for commands expected to exit). */
export function runBin(args: string[], env: NodeJS.ProcessEnv = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BIN, ...args], { cwd: ROOT, env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => (stdout += d));
    child.stderr.on("data", (d) => (stderr += d));
    child.once("exit", (code) => resolve({ code, stdout, stderr }));
  });
}
