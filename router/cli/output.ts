import { partsText } from "../core/reply.js";
import { CliError, EXIT, exitCodeForState } from "./exit-codes.js";
import type { TextSource } from "./input.js";
import { type CommonOptions, DEFAULT_ROUTER_URL, shellQuote } from "./options.js";
import { describePart, type PrinterOutput } from "./stream-printer.js";
import type { Part, TaskStatus } from "../core/model.js";
import type { ClientTask } from "../dialects/index.js";

/** The process edges a command touches, so tests and the binary can differ only here. */
export interface CliIO {
  stdout: PrinterOutput;
  stderr: PrinterOutput;
  stdin: TextSource;
  /** Registers a Ctrl-C handler; returns its removal. */
  onInterrupt(handler: () => void): () => void;
}

export function jsonLine(io: CliIO, value: unknown): void {
  io.stdout.write(`${JSON.stringify(value)}\n`);
}

export function note(io: CliIO, line: string): void {
  io.stderr.write(`${line}\n`);
}

/** The flags a printed follow-up command needs to reach the same target the same way. */
export function targetFlags(options: CommonOptions): string {
  const url = options.url === DEFAULT_ROUTER_URL ? "" : ` --url ${shellQuote(options.url)}`;
  return `${url}${options.a2aVersion !== undefined ? ` --a2a-version ${options.a2aVersion}` : ""}`;
}

/** The text parts of a message or artifact, joined (the reply model's reading). */
export function textOf(parts: readonly Part[] | undefined): string {
  return partsText(parts);
}

/** Says how the task ended (on stderr, unless it completed) and picks the exit code. */
export function reportOutcome(io: CliIO, taskId: string, status: TaskStatus | undefined, options: CommonOptions): number {
  const state = status?.state;
  const text = textOf(status?.message?.parts);
  const task = taskId === "" ? "the task" : `task ${taskId}`;
  switch (state) {
    case "completed":
      break;
    case "canceled":
      note(io, `${task} was canceled`);
      break;
    case "input-required":
    case "auth-required":
      note(io, `${task} needs more input; answer with: a2a-router send --task ${shellQuote(taskId)}${targetFlags(options)} "..."`);
      break;
    default:
      note(io, `${task} ${state ?? "ended without a state"}${text ? `: ${text}` : ""}`);
  }
  return exitCodeForState(state);
}

/**
 * Prints a task's answer as text: its status message, then each artifact text the message does not
 * already contain (an agent often keeps its reply as an artifact too, e.g. Eliza's `reply`).
 */
export function printTaskText(io: CliIO, task: ClientTask, includeNotices: boolean): void {
  const state = task.status.state;
  const message = textOf(task.status.message?.parts);
  const lines: string[] = [];
  if (message && (includeNotices || (state !== "failed" && state !== "rejected" && state !== "canceled"))) lines.push(message);
  for (const artifact of task.artifacts) {
    const text = textOf(artifact.parts);
    if (text && !message.includes(text)) lines.push(text);
    for (const part of artifact.parts) {
      const described = describePart(part);
      if (described) note(io, `${artifact.name ? `${artifact.name}: ` : ""}${described}`);
    }
  }
  for (const line of lines) io.stdout.write(line.endsWith("\n") ? line : `${line}\n`);
}

/** Turns anything a command threw into one line on stderr and an exit code. Never a stack trace. */
export function reportError(io: CliIO, err: unknown): number {
  if (err instanceof CliError) {
    note(io, `a2a-router: ${err.message}`);
    return err.exitCode;
  }
  note(io, `a2a-router: ${err instanceof Error ? err.message : String(err)}`);
  return EXIT.FAILED;
}
