/**
 * Starting one chat turn the way every chat face does: the session id is the A2A context id, the last user
 * message is the task's message, and a session whose newest task waits for input continues that task.
 */
import { randomUUID } from "node:crypto";
import type { FilePart, StreamEvent, Message, Metadata, Part, SendRequest } from "../../core/model.js";
import { dialectByName } from "../../dialects/index.js";
import type { TurnOnce } from "../../service/idempotency.js";
import type { StartedTurn, TaskService } from "../../service/task-service.js";
import type { Scope } from "../../service/scope.js";

/** The dialect chat-face tasks are created in (tasks/get, tasks/cancel answer in it). */
export const CHAT_DIALECT = "v0.3";

/** States in which a task's turn ended but the task goes on with the next message. */
const WAITING = new Set(["input-required", "auth-required"]);

export interface ChatTurnRequest {
  /** Agent id or name; absent: the router's default agent. */
  agent?: string;
  /** The session (= A2A context id); absent: a new context. */
  sessionId?: string;
  text: string;
  /** Files sent with the text (the AI SDK face's attachments), after it. */
  files?: readonly FilePart[];
  /** The user message's id (default: a new one) and metadata: a face that finds its turn's message again. */
  messageId?: string;
  messageMetadata?: Metadata;
  scope: Scope;
  /** Ends reading the events (the client went away); the turn itself goes on. */
  signal?: AbortSignal;
  /** The request's Idempotency-Key and digest: a retry gets the turn the first request started. */
  once?: TurnOnce;
  /** More of the task's metadata (the OpenAI face's `user` label). */
  metadata?: Record<string, unknown>;
}

/** A turn's events as the service streams them: an AsyncIterable of events, and of batches (`nextBatch`). */
export type TurnEvents = Awaited<ReturnType<TaskService["stream"]>>["events"];

export type ChatTurn = StartedTurn & { events: TurnEvents };

/**
 * The events a batch at a time, as the engine committed them together, so a face writes a batch's chunks in
 * one write (a write per chunk was a `writev` per event: /v1/chat/completions and /api/chat at 0.5-0.8x the
 * JSON-RPC stream, which writes a batch at once; docs/benchmarks.md, issue 33). Leaving the loop early ends
 * the reading (never the turn), as a `for await` over the events does.
 */
export async function* eventBatches(events: Pick<TurnEvents, "nextBatch" | "close">): AsyncGenerator<StreamEvent[], void, undefined> {
  try {
    for (let batch = await events.nextBatch(); !batch.done; batch = await events.nextBatch()) yield batch.value;
  } finally {
    events.close();
  }
}

/** Starts the turn and returns its live events. TaskErrors (unknown agent, offline, ...) reach the face. */
export async function startChatTurn(service: TaskService, req: ChatTurnRequest): Promise<ChatTurn> {
  const waiting = req.sessionId === undefined ? undefined : await waitingTask(service, req.sessionId, req.agent, req.scope);
  const message: Message = {
    role: "user",
    parts: messageParts(req),
    messageId: req.messageId ?? randomUUID(),
    ...(req.messageMetadata !== undefined && { metadata: req.messageMetadata }),
  };
  const send: SendRequest = {
    message,
    metadata: { ...req.metadata, ...(req.agent !== undefined && { agent: req.agent }) },
    ...(req.sessionId !== undefined && { contextId: req.sessionId }),
    ...(waiting !== undefined && { taskId: waiting }),
  };
  // The face makes each message id itself, so none repeats: nothing to look up (a retry is the Idempotency-Key's).
  return service.stream(send, { ...dialectByName(CHAT_DIALECT), dedupesMessageIds: false }, req.scope, req.signal, req.once);
}

/** The session's newest task, when it waits for input from this chat (and from the same agent). */
async function waitingTask(service: TaskService, sessionId: string, agent: string | undefined, scope: Scope): Promise<string | undefined> {
  const { tasks } = await service.list({ contextId: sessionId, pageSize: 1 }, scope);
  const [task] = tasks;
  if (!task || !WAITING.has(task.status.state)) return undefined;
  if (agent !== undefined && service.findAgent(agent, scope.caller)?.info.id !== task.agentId) return undefined;
  return task.id;
}

/** The text, then the files; a message of files alone has no empty text part. */
function messageParts(req: ChatTurnRequest): Part[] {
  const files = req.files ?? [];
  return req.text === "" && files.length > 0 ? [...files] : [{ kind: "text", text: req.text }, ...files];
}
