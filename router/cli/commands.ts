import { randomUUID } from "node:crypto";
import { ConnectionLostError, RouterClient } from "./client.js";
import { CliError, EXIT, exitCodeForState } from "./exit-codes.js";
import { readMessageText, type TextSource } from "./input.js";
import {
  type CommonOptions,
  DEFAULT_ROUTER_URL,
  type MessageOptions,
  parseLastEventId,
  parseMetadata,
  parseRouterUrl,
  requireNonEmpty,
  shellQuote,
} from "./options.js";
import { type PrinterOutput, StreamPrinter } from "./stream-printer.js";
import { type AgentListing, describePart, partsText, V01_METHODS, type V01Event, type V01Status, type V01Task } from "./wire.js";

/** The process edges a command touches, so tests and the binary can differ only here. */
export interface CliIO {
  stdout: PrinterOutput;
  stderr: PrinterOutput;
  stdin: TextSource;
  /** Registers a Ctrl-C handler; returns its removal. */
  onInterrupt(handler: () => void): () => void;
}

function clientFor(options: CommonOptions): RouterClient {
  return new RouterClient(parseRouterUrl(options.url), requireNonEmpty(options.apiKey, "--api-key"));
}

function jsonLine(io: CliIO, value: unknown): void {
  io.stdout.write(`${JSON.stringify(value)}\n`);
}

function note(io: CliIO, line: string): void {
  io.stderr.write(`${line}\n`);
}

function urlFlag(options: CommonOptions): string {
  return options.url === DEFAULT_ROUTER_URL ? "" : ` --url ${shellQuote(options.url)}`;
}

/** Says how the task ended (on stderr, unless it completed) and picks the exit code. */
function reportOutcome(io: CliIO, taskId: string, status: V01Status | undefined, options: CommonOptions): number {
  const state = status?.state;
  const text = partsText(status?.message?.parts);
  const id = shellQuote(taskId);
  switch (state) {
    case "completed":
      break;
    case "canceled":
      note(io, `task ${taskId} was canceled`);
      break;
    case "input-required":
    case "auth-required":
      note(io, `task ${taskId} needs more input; answer with: a2a-router send --task ${id}${urlFlag(options)} "..."`);
      break;
    default:
      note(io, `task ${taskId} ${state ?? "ended without a state"}${text ? `: ${text}` : ""}`);
  }
  return exitCodeForState(state);
}

/**
 * Prints a task's answer as text: its status message, then each artifact text the message does not
 * already contain (an agent often keeps its reply as an artifact too, e.g. Eliza's `reply`).
 */
function printTaskText(io: CliIO, task: V01Task, includeNotices: boolean): void {
  const state = task.status?.state;
  const message = partsText(task.status?.message?.parts);
  const lines: string[] = [];
  if (message && (includeNotices || (state !== "failed" && state !== "rejected" && state !== "canceled"))) lines.push(message);
  for (const artifact of task.artifacts ?? []) {
    const text = partsText(artifact.parts);
    if (text && !message.includes(text)) lines.push(text);
    for (const part of artifact.parts ?? []) {
      const described = describePart(part);
      if (described) note(io, `${artifact.name ? `${artifact.name}: ` : ""}${described}`);
    }
  }
  for (const line of lines) io.stdout.write(line.endsWith("\n") ? line : `${line}\n`);
}

async function messageParams(text: string[], options: MessageOptions, io: CliIO) {
  const metadata = parseMetadata(options.metadata);
  const agent = requireNonEmpty(options.agent, "--agent");
  const skill = requireNonEmpty(options.skill, "--skill");
  const session = requireNonEmpty(options.session, "--session");
  const taskId = requireNonEmpty(options.task, "--task") ?? randomUUID();
  const client = clientFor(options);
  const messageText = await readMessageText(text, io.stdin);
  const params = {
    id: taskId,
    ...(session !== undefined && { sessionId: session }),
    message: { role: "user", parts: [{ type: "text", text: messageText }] },
    metadata: { ...metadata, ...(agent !== undefined && { agent }), ...(skill !== undefined && { skill }) },
  };
  return { client, taskId, params };
}

/** `send`: tasks/send, waits for the turn to end. */
export async function sendCommand(text: string[], options: MessageOptions, io: CliIO): Promise<number> {
  const { client, taskId, params } = await messageParams(text, options, io);
  let task: V01Task;
  try {
    task = await client.rpc<V01Task>(V01_METHODS.SEND, params);
  } catch (err) {
    if (!(err instanceof ConnectionLostError)) throw err;
    note(io, `a2a-router: ${err.message}. Task ${taskId} may go on; check it with: a2a-router get ${shellQuote(taskId)}${urlFlag(options)}`);
    return err.exitCode;
  }
  if (options.json) jsonLine(io, task);
  else printTaskText(io, task, false);
  return reportOutcome(io, taskId, task.status, options);
}

/** `stream`: tasks/sendSubscribe, prints the answer as it arrives. */
export async function streamCommand(text: string[], options: MessageOptions, io: CliIO): Promise<number> {
  const { client, taskId, params } = await messageParams(text, options, io);
  if (!options.json && io.stderr.isTTY) note(io, `task ${taskId}`);
  return follow(io, options, taskId, client.stream.bind(client), V01_METHODS.SEND_SUBSCRIBE, params, undefined);
}

/** `resubscribe`: tasks/resubscribe, from the start or after --last-event-id. */
export async function resubscribeCommand(taskId: string, options: CommonOptions & { lastEventId?: string }, io: CliIO): Promise<number> {
  const lastEventId = parseLastEventId(options.lastEventId);
  const client = clientFor(options);
  return follow(io, options, taskId, client.stream.bind(client), V01_METHODS.RESUBSCRIBE, { id: taskId }, lastEventId);
}

async function follow(
  io: CliIO,
  options: CommonOptions,
  taskId: string,
  stream: RouterClient["stream"],
  method: string,
  params: unknown,
  lastEventId: string | undefined,
): Promise<number> {
  const controller = new AbortController();
  let interrupted = false;
  const removeInterrupt = io.onInterrupt(() => {
    interrupted = true;
    controller.abort();
  });
  const printer = new StreamPrinter(io.stdout, io.stderr);
  let lastSeq = lastEventId === undefined ? undefined : Number(lastEventId);
  let final: V01Event | undefined;
  const resume = () =>
    `a2a-router resubscribe --task ${shellQuote(taskId)}${lastSeq !== undefined ? ` --last-event-id ${lastSeq}` : ""}${urlFlag(options)}`;
  try {
    for await (const event of stream(method, params, { lastEventId, signal: controller.signal })) {
      if (event.seq !== undefined) lastSeq = event.seq;
      if (options.json) jsonLine(io, event.seq === undefined ? event.result : { ...event.result, seq: event.seq });
      else printer.event(event.result);
      if (event.result?.final) {
        final = event.result;
        break;
      }
    }
  } catch (err) {
    printer.finish();
    // Ctrl-C aborts the request, which may surface as a broken connection: it is still an interrupt.
    if (!interrupted) {
      if (!(err instanceof ConnectionLostError)) throw err;
      note(io, `a2a-router: ${err.message}. Task ${taskId} may go on; resume with: ${resume()}`);
      return err.exitCode;
    }
  } finally {
    removeInterrupt();
  }
  printer.finish();
  if (interrupted) {
    note(io, `stopped following task ${taskId}; it goes on. Resume with: ${resume()}`);
    return EXIT.INTERRUPTED;
  }
  if (!final) {
    note(io, `the stream ended before task ${taskId} finished; resume with: ${resume()}`);
    return EXIT.FAILED;
  }
  return reportOutcome(io, taskId, final.status, options);
}

/** `get`: tasks/get; the exit code follows the task's state (0 while it runs). */
export async function getCommand(taskId: string, options: CommonOptions, io: CliIO): Promise<number> {
  const task = await clientFor(options).rpc<V01Task>(V01_METHODS.GET, { id: taskId });
  if (options.json) jsonLine(io, task);
  else {
    io.stdout.write(`task ${task.id}: ${task.status?.state}\n`);
    printTaskText(io, task, true);
  }
  return exitCodeForState(task.status?.state);
}

/** `cancel`: tasks/cancel; exits 0 once the task is canceled. */
export async function cancelCommand(taskId: string, options: CommonOptions, io: CliIO): Promise<number> {
  const task = await clientFor(options).rpc<V01Task>(V01_METHODS.CANCEL, { id: taskId });
  const state = task.status?.state;
  if (options.json) jsonLine(io, task);
  else io.stdout.write(`task ${task.id}: ${state}\n`);
  return state === "canceled" ? EXIT.COMPLETED : exitCodeForState(state);
}

/** `agents`: GET /agents, one line per agent. */
export async function agentsCommand(options: CommonOptions, io: CliIO): Promise<number> {
  const agents = await clientFor(options).agents();
  if (options.json) {
    for (const agent of agents) jsonLine(io, agent);
    return EXIT.COMPLETED;
  }
  if (agents.length === 0) {
    note(io, "no agents");
    return EXIT.COMPLETED;
  }
  const rows = agents.map((a: AgentListing) => [
    a.id,
    a.transport ?? "",
    a.online === false ? "offline" : "online",
    a.card?.description ?? a.name ?? "",
  ]);
  const widths = [0, 1, 2].map((i) => Math.max(...rows.map((r) => r[i]!.length)));
  for (const row of rows) {
    io.stdout.write(`${row.map((cell, i) => (i < 3 ? cell.padEnd(widths[i]!) : cell)).join("  ").trimEnd()}\n`);
  }
  return EXIT.COMPLETED;
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
