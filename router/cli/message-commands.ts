import { randomUUID } from "node:crypto";
import type { ClientCall } from "../client/index.js";
import { newId } from "../core/ids.js";
import type { Message, Metadata } from "../core/model.js";
import type { ClientCodec, ClientEvent, ClientTask } from "../dialects/index.js";
import { type A2AClient, ConnectionLostError } from "./client.js";
import { EXIT } from "./exit-codes.js";
import { readMessageText } from "./input.js";
import { type CommonOptions, type MessageOptions, parseLastEventId, parseMetadata, requireNonEmpty, shellQuote } from "./options.js";
import { type CliIO, jsonLine, note, printTaskText, reportOutcome, targetFlags } from "./output.js";
import { StreamPrinter } from "./stream-printer.js";
import { openTarget } from "./target.js";

/** What a message command sends, before any dialect spells it. */
interface SendInput {
  /** The message, in the router's terms: its `taskId` and `contextId` are --task and --session. */
  message: Message;
  metadata: Metadata;
}

/**
 * The message a send carries: the text as one part; `messageId` new for each send (v0.3/v1.0 require
 * one); v0.1's task id (the client names its tasks) or the v0.3/v1.0 task it continues; the session.
 */
function userMessage(text: string, taskId: string | undefined, sessionId: string | undefined): Message {
  return {
    role: "user",
    parts: [{ kind: "text", text }],
    messageId: randomUUID(),
    ...(taskId !== undefined && { taskId }),
    ...(sessionId !== undefined && { contextId: sessionId }),
  };
}

/** The target and what to send, from the message flags and the text (argument or stdin). */
async function prepare(text: string[], options: MessageOptions, io: CliIO) {
  const metadata = parseMetadata(options.metadata);
  const agent = requireNonEmpty(options.agent, "--agent");
  const skill = requireNonEmpty(options.skill, "--skill");
  const session = requireNonEmpty(options.session, "--session");
  const task = requireNonEmpty(options.task, "--task");
  const messageText = await readMessageText(text, io.stdin);
  const { client, codec, card, isRouter } = await openTarget(options);
  // v0.1 clients name their tasks; v0.3/v1.0 agents name theirs, and --task continues an existing one.
  const taskId = task ?? (codec.clientNamesTasks ? newId() : undefined);
  const input: SendInput = {
    message: userMessage(messageText, taskId, session),
    // The router reads its agent and skill from here; other agents ignore unknown metadata.
    metadata: { ...metadata, ...(agent !== undefined && { agent }), ...(skill !== undefined && { skill }) },
  };
  // A2A's default: an agent streams only when its card says so (a router always streams).
  const capabilities = card?.capabilities as { streaming?: unknown } | undefined;
  const streams = isRouter || card === undefined || capabilities?.streaming === true;
  return { client, codec, streams, taskId: taskId ?? "", input };
}

/**
 * The artifacts a task holds before a send that continues it (`--task`), as JSON: the answer printed is this
 * turn's, so an earlier turn's artifacts are not printed again. None when the task is new or cannot be read.
 */
async function earlierArtifacts(client: A2AClient, codec: ClientCodec, taskId: string): Promise<Set<string>> {
  try {
    const task = codec.readTask(await client.call(codec.get(taskId)));
    return new Set(task.artifacts.map((a) => JSON.stringify(a)));
  } catch {
    return new Set();
  }
}

/** `send`: a blocking send (tasks/send, message/send, SendMessage), printed once the turn ends. */
export async function sendCommand(text: string[], options: MessageOptions, io: CliIO): Promise<number> {
  const { client, codec, taskId, input } = await prepare(text, options, io);
  const earlier = options.task !== undefined && !options.json ? await earlierArtifacts(client, codec, taskId) : undefined;
  let result: unknown;
  try {
    result = await client.call(codec.send(input.message, input.metadata, false));
  } catch (err) {
    if (!(err instanceof ConnectionLostError)) throw err;
    const check = taskId ? ` Task ${taskId} may go on; check it with: a2a-router get ${shellQuote(taskId)}${targetFlags(options)}` : "";
    note(io, `a2a-router: ${err.message}.${check}`);
    return err.exitCode;
  }
  const task: ClientTask = codec.readSend(result);
  if (options.json) jsonLine(io, result);
  else printTaskText(io, earlier ? { ...task, artifacts: task.artifacts.filter((a) => !earlier.has(JSON.stringify(a))) } : task, false);
  return reportOutcome(io, task.id || taskId, task.status, options);
}

/** `stream`: a streaming send, the answer printed as it arrives (a blocking send to an agent that does not stream). */
export async function streamCommand(text: string[], options: MessageOptions, io: CliIO): Promise<number> {
  const { client, codec, streams, taskId, input } = await prepare(text, options, io);
  if (!options.json && io.stderr.isTTY && taskId) note(io, `task ${taskId}`);
  // An agent that does not stream gets a blocking send, whose one answer is printed as a one-event stream.
  return follow(io, options, { client, codec }, taskId, codec.send(input.message, input.metadata, streams), undefined);
}

/** `resubscribe`: follows a task's stream again, from the start or after --last-event-id. */
export async function resubscribeCommand(taskId: string, options: CommonOptions & { lastEventId?: string }, io: CliIO): Promise<number> {
  const lastEventId = parseLastEventId(options.lastEventId);
  const target = await openTarget(options);
  return follow(io, options, target, taskId, target.codec.resubscribe(taskId), lastEventId);
}

async function follow(
  io: CliIO,
  options: CommonOptions,
  target: { client: A2AClient; codec: ClientCodec },
  knownTaskId: string,
  call: ClientCall,
  lastEventId: string | undefined,
): Promise<number> {
  const controller = new AbortController();
  let interrupted = false;
  const removeInterrupt = io.onInterrupt(() => {
    interrupted = true;
    controller.abort();
  });
  const printer = new StreamPrinter(io.stdout, io.stderr, { resumed: lastEventId !== undefined && Number(lastEventId) > 0 });
  let taskId = knownTaskId;
  let lastSeq = lastEventId === undefined ? undefined : Number(lastEventId);
  let final: ClientEvent | undefined;
  const resume = () =>
    `a2a-router resubscribe --task ${shellQuote(taskId)}${lastSeq !== undefined ? ` --last-event-id ${lastSeq}` : ""}${targetFlags(options)}`;
  try {
    for await (const event of target.client.stream(call, { ...(lastEventId !== undefined && { lastEventId }), signal: controller.signal })) {
      if (event.seq !== undefined) lastSeq = event.seq;
      const events = target.codec.readEvent(event.result);
      if (options.json) jsonLine(io, event.seq === undefined ? event.result : { ...(event.result as object), seq: event.seq });
      for (const e of events) {
        if (!taskId && e.taskId) taskId = e.taskId;
        if (!options.json) printer.event(e);
        if (e.kind === "status" && e.final) final = e;
      }
      if (final) break;
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
  if (final?.kind !== "status") {
    note(io, `the stream ended before task ${taskId} finished; resume with: ${resume()}`);
    return EXIT.FAILED;
  }
  return reportOutcome(io, taskId, final.status, options);
}
