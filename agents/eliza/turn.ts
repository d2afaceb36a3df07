/**
 * One A2A turn of the Eliza agent: runs the message pipeline and maps what happens to AgentUpdates
 * (docs/contract.md section 7):
 * - model tokens: the content of `<text>` as it arrives, as chunks of the "reply" artifact (append); the
 *   last chunk carries `lastChunk: true`, sent as soon as the reply is complete: when an action other than
 *   REPLY starts, when the first callback arrives, or at the end of the turn, whichever comes first;
 * - action callbacks (and action failures): `working` status snapshots of the whole visible reply, metadata
 *   `{fullText, merge, textKind: "snapshot"}`;
 * - the end: `completed` with the visible reply and `actionCallbackHistory`; `input-required` when an action
 *   asked for its missing parameters (metadata `missingParameters`; ask-back.ts); or `failed` with the cause
 *   (`textKind: "snapshot"` whenever the status has a message).
 * Every status text the runtime sends is the whole visible reply (CONTRACT 9 "snapshot"): the runtime has no
 * status line apart from the reply, so it never sends "progress"; the model's tokens are the answer's deltas and
 * travel as artifact chunks (append) marked `textKind: "delta"` (docs/reply-model.md), never as statuses.
 * The turn never hangs: a model error, the turn timeout or a dead handler end it; `ctx.signal` aborts it.
 */
import { randomUUID } from "node:crypto";
import type { ExecuteContext } from "../../router/core/agent.js";
import { agentText, TEXT_KIND_KEY, textOf, type AgentUpdate, type Metadata, type TaskStatus } from "../../router/core/model.js";
import { AsyncQueue } from "../../router/core/async-queue.js";
import { answerPendingAction, askedInHistory, PENDING_ACTION_KEY, pendingActionOf, type PendingAction } from "./ask-back.js";
import { DEFAULT_MESSAGE_SOURCE, REPLY_ARTIFACT_ID } from "./defaults.js";
import { userEntityId } from "./memory.js";
import { handleMessage, type MessageHooks, type MessageOutcome } from "./message-handler.js";
import type { ActionOutcome } from "./process-actions.js";
import type { AgentRuntime } from "./runtime.js";
import { ReplyTextExtractor } from "./text-stream.js";
import { TurnEvents } from "./turn-events.js";
import type { Content, Memory } from "./types.js";
import { VisibleReply } from "./visible-reply.js";

/** The reason a turn is aborted when it runs out of time. */
export class TurnTimeoutError extends Error {
  constructor(readonly timeoutMs: number) {
    super(`the turn timed out after ${timeoutMs} ms`);
    this.name = "TurnTimeoutError";
  }
}

/** Resolves or rejects with `promise`, or rejects with the signal's reason as soon as it aborts. */
function raceAbort<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(
      (v) => {
        signal.removeEventListener("abort", onAbort);
        resolve(v);
      },
      (e) => {
        signal.removeEventListener("abort", onAbort);
        reject(e);
      },
    );
  });
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function resultsMetadata(results: ActionOutcome[]): ActionOutcome[] {
  // Through JSON: data from handlers may hold things a store cannot keep.
  return JSON.parse(JSON.stringify(results)) as ActionOutcome[];
}

/** Maps one turn's pipeline events to AgentUpdates, and persists what the user saw. */
class TurnStream {
  readonly reply = new VisibleReply();
  readonly #queue: AsyncQueue<AgentUpdate>;
  readonly #runtime: AgentRuntime;
  readonly #roomId: string;
  #extractor = new ReplyTextExtractor();
  #attempt = 0;
  /** The latest token chunk, held back so the last one can carry `lastChunk: true`. */
  #pending: { text: string; append: boolean } | undefined;
  #artifactStarted = false;
  /** The artifact got its `lastChunk`: text that still extends the reply goes out as status snapshots. */
  #artifactClosed = false;
  /** The next chunk replaces the artifact (a new model attempt, or a reply that differs from the stream). */
  #restart = false;
  #persisted = false;

  constructor(runtime: AgentRuntime, roomId: string, queue: AsyncQueue<AgentUpdate>) {
    this.#runtime = runtime;
    this.#roomId = roomId;
    this.#queue = queue;
  }

  readonly hooks: MessageHooks = {
    onModelChunk: (chunk, attempt) => {
      if (attempt !== this.#attempt) {
        this.#attempt = attempt;
        this.#extractor = new ReplyTextExtractor();
        if (attempt > 1) {
          this.reply.resetTokens();
          this.#restart = true;
        }
      }
      const text = this.#extractor.feed(chunk);
      if (text) this.#token(text);
    },
    callback: async (content, from) => {
      this.#onContent(content, from);
      return [];
    },
    onActionChunk: async (chunk) => {
      if (!this.reply.hasCallbacks) return this.#token(chunk);
      this.reply.appendText(chunk);
      this.#status(this.reply.text, "append");
    },
    onActionStart: (action) => {
      // REPLY only delivers the reply (it may still correct the streamed text); any other action means the
      // reply is complete, and the client should know before the action's (possibly slow) work.
      if (action.toUpperCase() !== "REPLY") this.#closeArtifact();
    },
  };

  #onContent(content: Content, from: string): void {
    const text = content.text ?? "";
    if (text === "") return;
    if (from === "REPLY" && !this.reply.hasCallbacks) {
      // The reply was (usually) streamed as tokens already: deliver only what the stream did not show.
      const shown = this.reply.text;
      if (text === shown) return;
      if (text.startsWith(shown)) return this.#token(text.slice(shown.length));
      this.reply.resetTokens();
      this.#restart = true;
      return this.#token(text);
    }
    const merge = content.merge === "append" ? "append" : "replace";
    const snapshot = this.reply.callback(text, merge);
    this.#status(snapshot.fullText, merge);
  }

  #token(text: string): void {
    this.reply.appendText(text);
    if (this.#artifactClosed) {
      // The artifact is finished: the rest of the reply (an action's stream, a corrected REPLY text) is shown
      // as snapshots of the whole reply, like callbacks.
      const merge = this.#restart ? "replace" : "append";
      this.#restart = false;
      return this.#status(this.reply.text, merge);
    }
    this.flushToken(false);
    this.#pending = { text, append: this.#artifactStarted && !this.#restart };
    this.#artifactStarted = true;
    this.#restart = false;
  }

  #status(fullText: string, merge: "replace" | "append"): void {
    this.#closeArtifact();
    this.#queue.push({
      kind: "status",
      status: { state: "working", message: agentText(fullText), timestamp: new Date().toISOString() },
      final: false,
      metadata: { fullText, merge, [TEXT_KIND_KEY]: "snapshot" },
    });
  }

  /** Sends the held-back chunk as the artifact's last one, if the artifact is open. */
  #closeArtifact(): void {
    if (!this.#pending) return;
    this.flushToken(true);
    this.#artifactClosed = true;
  }

  /** Sends the held-back token chunk, if any. */
  flushToken(lastChunk: boolean): void {
    const pending = this.#pending;
    if (!pending) return;
    this.#pending = undefined;
    this.#queue.push({
      kind: "artifact",
      artifact: { artifactId: REPLY_ARTIFACT_ID, name: REPLY_ARTIFACT_ID, parts: [{ kind: "text", text: pending.text }] },
      append: pending.append,
      lastChunk,
      // The reply tokens are the answer itself (docs/reply-model.md): chat faces stream them as it.
      metadata: { [TEXT_KIND_KEY]: "delta" },
    });
  }

  /**
   * Persists the turn as ONE assistant memory (docs/contract.md section 7): `text` is the latest callback text, or
   * the reply text when no action called back, and `actionCallbackHistory` every callback text in order.
   * The streamed reply that preceded the callbacks is kept as `preCallbackText` (not shown on reload, as in
   * elizaOS's read path).
   */
  async persist(outcome: MessageOutcome | undefined, inReplyTo: string): Promise<Memory | undefined> {
    if (this.#persisted) return undefined;
    this.#persisted = true;
    const base = { entityId: this.#runtime.agentId, agentId: this.#runtime.agentId, roomId: this.#roomId, createdAt: Date.now() };
    const replyText = this.reply.replyText;
    if (replyText === "" && !this.reply.hasCallbacks) return undefined;
    const content: Content = this.reply.hasCallbacks
      ? {
          text: this.reply.callbackText,
          actionCallbackHistory: this.reply.actionCallbackHistory,
          inReplyTo,
          ...(replyText !== "" && { preCallbackText: replyText }),
        }
      : { text: replyText, inReplyTo };
    if (outcome?.response) {
      content.thought = outcome.response.thought;
      content.actions = outcome.response.actions;
    }
    const memory: Memory = { ...base, content };
    memory.id = await this.#runtime.createMemory(memory);
    return memory;
  }

  end(update: AgentUpdate): void {
    this.flushToken(true);
    this.#queue.push(update);
  }
}

export interface TurnOptions {
  timeoutMs: number;
}

/**
 * Runs one turn for `ctx` and yields its AgentUpdates. Ends with a final `completed` or `failed` status,
 * except when `ctx.signal` aborts (the engine ends a canceled task itself).
 */
export async function* runTurn(runtime: AgentRuntime, ctx: ExecuteContext, options: TurnOptions): AsyncGenerator<AgentUpdate> {
  if (ctx.signal.aborted) return;
  const roomId = ctx.task.contextId;
  const queue = new AsyncQueue<AgentUpdate>();
  const stream = new TurnStream(runtime, roomId, queue);
  const controller = new AbortController();
  const onCancel = () => controller.abort(ctx.signal.reason);
  ctx.signal.addEventListener("abort", onCancel, { once: true });
  const timer = setTimeout(() => controller.abort(new TurnTimeoutError(options.timeoutMs)), options.timeoutMs);

  const source = [ctx.metadata.source, ctx.message.metadata?.source].find((s) => typeof s === "string") as string | undefined;
  const roomType = typeof ctx.metadata.roomType === "string" ? ctx.metadata.roomType : undefined;
  const message: Memory & { id: string } = {
    id: randomUUID(),
    entityId: userEntityId(roomId),
    agentId: runtime.agentId,
    roomId,
    content: { text: textOf(ctx.message), source: source ?? DEFAULT_MESSAGE_SOURCE, messageId: ctx.message.messageId, taskId: ctx.task.id },
    createdAt: Date.now(),
  };

  const events = new TurnEvents(runtime, message);
  const work = (async () => {
    let outcome: MessageOutcome | undefined;
    let asked: PendingAction | undefined;
    try {
      await raceAbort(events.started(), controller.signal);
      // The answer to a question this task asked goes to the action that asked it (asking back).
      asked = askedInHistory(ctx.task.history);
      const handling = asked
        ? answerPendingAction(runtime, message, asked, stream.hooks, { signal: controller.signal, roomType })
        : handleMessage(runtime, message, stream.hooks, { signal: controller.signal, roomType });
      outcome = await raceAbort(handling, controller.signal);
      const sent = outcome.status !== "discarded" ? await stream.persist(outcome, message.id) : undefined;
      stream.end(finalUpdate(outcome, stream.reply, asked !== undefined));
      events.ended();
      if (sent) events.sent(sent);
    } catch (err) {
      events.ended({ error: errorText(err), timedOut: err instanceof TurnTimeoutError });
      if (ctx.signal.aborted) return; // canceled: the engine ends the task
      runtime.logger.warn({ err, taskId: ctx.task.id }, "eliza turn failed");
      await stream.persist(outcome, message.id).catch((e: unknown) => runtime.logger.warn({ err: e }, "could not persist a failed turn"));
      const reason = errorText(err);
      stream.end({
        kind: "status",
        status: { state: "failed", message: agentText(reason), timestamp: new Date().toISOString() },
        final: true,
        metadata: { error: reason, actionCallbackHistory: stream.reply.actionCallbackHistory, [TEXT_KIND_KEY]: "snapshot" },
      });
    }
  })().finally(() => queue.end());

  try {
    for await (const update of queue) yield update;
  } finally {
    clearTimeout(timer);
    ctx.signal.removeEventListener("abort", onCancel);
    if (!queue.ended) controller.abort(new Error("the turn's consumer went away"));
    queue.end();
    await work;
  }
}

/** `answered`: the turn answered a question (the task's metadata then loses the earlier `missingParameters`). */
function finalUpdate(outcome: MessageOutcome, reply: VisibleReply, answered: boolean): AgentUpdate {
  const metadata: Metadata = {
    actionCallbackHistory: reply.actionCallbackHistory,
    actionResults: resultsMetadata(outcome.actionResults),
  };
  if (outcome.status === "ignored") metadata.ignored = true;
  if (outcome.status === "discarded") metadata.discarded = true;
  // An action that asked for its missing parameters: the turn waits for the answer. The question's message
  // carries what is pending (the task's history keeps it for the next turn, see ask-back.ts).
  const pending = pendingActionOf(outcome.actionResults);
  if (pending) {
    metadata.missingParameters = pending.missing;
    metadata[TEXT_KIND_KEY] = "snapshot";
    const message = { ...agentText(reply.text), metadata: { [PENDING_ACTION_KEY]: pending } };
    return { kind: "status", status: { state: "input-required", message, timestamp: new Date().toISOString() }, final: true, metadata };
  }
  if (answered) metadata.missingParameters = [];
  // A turn that showed nothing (ignored, or actions that never called back) ends without a message.
  const status: TaskStatus = { state: "completed", timestamp: new Date().toISOString() };
  if (reply.text !== "") {
    status.message = agentText(reply.text);
    metadata[TEXT_KIND_KEY] = "snapshot";
  }
  return { kind: "status", status, final: true, metadata };
}
