import { spawn, type ChildProcess } from "node:child_process";
import { BIN, ROOT } from "./build.js";

export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** A running `a2a-router` child: its output so far, and promises on its text and its end. */
export class CliProcess {
  readonly child: ChildProcess;
  stdout = "";
  stderr = "";
  readonly done: Promise<CliResult>;
  #waiters: Array<() => void> = [];

  constructor(args: string[], options: { env?: Record<string, string | undefined>; input?: string } = {}) {
    const env: Record<string, string | undefined> = { ...process.env, ...options.env };
    for (const key of Object.keys(env)) if (env[key] === undefined) delete env[key];
    this.child = spawn(process.execPath, [BIN, ...args], { cwd: ROOT, env: env as NodeJS.ProcessEnv, stdio: ["pipe", "pipe", "pipe"] });
    this.child.stdout!.setEncoding("utf8").on("data", (d: string) => {
      this.stdout += d;
      this.#wake();
    });
    this.child.stderr!.setEncoding("utf8").on("data", (d: string) => {
      this.stderr += d;
      this.#wake();
    });
    if (options.input !== undefined) this.child.stdin!.end(options.input);
    this.done = new Promise((resolve) => {
      this.child.on("close", (code, signal) => {
        this.#wake();
        resolve({ code, signal, stdout: this.stdout, stderr: this.stderr });
      });
    });
  }

  /** Resolves once stdout satisfies `check` (rejects if the process ends first). */
  async untilStdout(check: (stdout: string) => boolean): Promise<void> {
    while (!check(this.stdout)) {
      if (this.child.exitCode !== null || this.child.signalCode !== null) {
        throw new Error(`CLI ended before the expected output; stdout: ${this.stdout} stderr: ${this.stderr}`);
      }
      await new Promise<void>((resolve) => this.#waiters.push(resolve));
    }
  }

  #wake(): void {
    for (const w of this.#waiters.splice(0)) w();
  }
}

/** Runs the CLI to completion. stdin is closed at once (empty) unless `input` is given. */
export function cli(args: string[], options: { env?: Record<string, string | undefined>; input?: string } = {}): Promise<CliResult> {
  return new CliProcess(args, { ...options, input: options.input ?? "" }).done;
}

/** Parses --json output: one JSON object a line. */
export function jsonLines(stdout: string): any[] {
  return stdout
    .split("\n")
    .filter((line) => line !== "")
    .map((line) => JSON.parse(line));
}
