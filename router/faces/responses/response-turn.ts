/**
 * A response and its turn: what rides on the turn's user message (so nothing else is stored), finding a
 * response again from its id, and reading it as it stands or to its end, always by translating the task's
 * log from the turn's start.
 */
import { TaskError } from "../../core/errors.js";
import type { Message, Task } from "../../core/model.js";
import type { Scope } from "../../service/scope.js";
import type { TaskService } from "../../service/task-service.js";
import { createResponseTranslator, type ResponseBase, type ResponseObject } from "./response-events.js";
import { decodeResponseId, encodeResponseId } from "./response-id.js";

/** The key, in the turn's user message metadata, of what the response was asked with. */
export const RESPONSE_METADATA_KEY = "openaiResponse";

/** What a response was asked with, kept on its turn's user message. */
export interface AskedWith {
  createdAt: number;
  background: boolean;
  metadata: Record<string, string>;
  previousResponseId: string | null;
}

/** A response found again: its task as read, the turn's start, and what the response is apart from its events. */
export interface FoundResponse {
  task: Task;
  fromSeq: number;
  base: ResponseBase;
}

/** The response base of a turn whose user message is `task.history[messageIndex]`. */
export function responseBase(task: Task, fromSeq: number, messageIndex: number, asked: AskedWith): ResponseBase {
  return {
    id: encodeResponseId({ taskId: task.id, fromSeq, messageIndex }),
    createdAt: asked.createdAt,
    model: task.agentId,
    background: asked.background,
    metadata: asked.metadata,
    previousResponseId: asked.previousResponseId,
    taskId: task.id,
    contextId: task.contextId,
  };
}

/**
 * The response an id names, if the caller may see its task (another key's response is not found, as for
 * every task, CONTRACT 12). TaskErrors other than not-found reach the face.
 */
export async function findResponse(service: TaskService, id: string, scope: Scope): Promise<FoundResponse | undefined> {
  const ref = decodeResponseId(id);
  if (!ref) return undefined;
  let task: Task;
  try {
    task = await service.get(ref.taskId, scope);
  } catch (err) {
    if (err instanceof TaskError && err.reason === "task-not-found") return undefined;
    throw err;
  }
  const asked = askedWith(task.history[ref.messageIndex]);
  if (!asked || ref.fromSeq > task.lastSeq) return undefined;
  return { task, fromSeq: ref.fromSeq, base: responseBase(task, ref.fromSeq, ref.messageIndex, asked) };
}

/** What a user message says the response was asked with; undefined for a message no response made. */
export function askedWith(message: Message | undefined): AskedWith | undefined {
  if (message?.role !== "user") return undefined;
  const asked = message.metadata?.[RESPONSE_METADATA_KEY] as Partial<AskedWith> | undefined;
  if (typeof asked !== "object" || asked === null || typeof asked.createdAt !== "number") return undefined;
  return {
    createdAt: asked.createdAt,
    background: asked.background === true,
    metadata: (asked.metadata ?? {}) as Record<string, string>,
    previousResponseId: typeof asked.previousResponseId === "string" ? asked.previousResponseId : null,
  };
}

/**
 * The response object after its turn's events up to `until`: `"now"` (what the log holds as the task was
 * read: GET, never waiting) or `"end"` (waiting for the turn to end: after a cancel). `signal` ends the wait.
 */
export async function readResponse(
  service: TaskService,
  found: FoundResponse,
  scope: Scope,
  until: "now" | "end",
  signal?: AbortSignal,
): Promise<ResponseObject> {
  const translator = createResponseTranslator(found.base);
  translator.start();
  const lastSeq = found.task.lastSeq;
  if (until === "end" || lastSeq > found.fromSeq) {
    const events = await service.events(found.task.id, found.fromSeq, scope, signal);
    try {
      for await (const event of events) {
        translator.feed(event);
        if (translator.ended || (until === "now" && event.seq !== undefined && event.seq >= lastSeq)) break;
      }
    } finally {
      await events.return();
    }
  }
  return translator.response();
}
