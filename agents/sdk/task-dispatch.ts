import { CONTINUATION_KEY } from "../../hub/wire/frames.js";
import { HubRefusal } from "../../hub/wire/errors.js";
import type { Outbox } from "./outbox.js";
import { artifactParams, completeParams, HUB_METHODS, statusParams, textOf, type ExecuteParams } from "./protocol.js";
import type { SkillEntry } from "./registration.js";
import { Slots } from "./slots.js";
import { runTask, type SendFrame } from "./task-runner.js";
import type { AgentLogger, ArtifactInput, Message, SkillHandler, TaskContext, TaskEvent } from "./types.js";

/** What a dispatcher needs from its agent. */
export interface DispatchOptions {
  name: string;
  concurrency: number;
  logger: AgentLogger;
  outbox: Outbox;
  skills: ReadonlyMap<string, SkillEntry>;
  /** Told of each task the hub hands over (the agent's `task` event). */
  onTask(event: TaskEvent): void;
}

/** The answer to a `task.execute` the agent cannot take. */
export type ExecuteRefusal = { code: number; message: string; data?: unknown };

/** A task whose handler runs (or waits for a slot, or waits in `ctx.ask` for the client's answer). */
interface TaskRun {
  controller: AbortController;
  /** The current turn's update count: each turn numbers its updates from 1 (the hub acks a re-sent copy). */
  seq: number;
  /** Set while the handler waits in `ctx.ask`: the continuation's message settles it. */
  asking?: (message: Message) => void;
  /** Whether it holds one of the agent's `concurrency` slots (not while waiting for one or for an answer). */
  holdsSlot?: boolean;
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * The tasks the hub hands the agent: picks the skill, runs handlers (at most `concurrency` at once), numbers
 * each turn's updates, hands a continuation to the handler waiting in `ctx.ask`, and aborts a task when the
 * hub cancels it.
 */
export class TaskDispatcher {
  #opts: DispatchOptions;
  #slots: Slots;
  #running = new Map<string, TaskRun>();

  constructor(options: DispatchOptions) {
    this.#opts = options;
    this.#slots = new Slots(options.concurrency);
  }

  /** Takes a `task.execute`; returns a refusal for params it cannot run. */
  execute(params: ExecuteParams): ExecuteRefusal | undefined {
    if (typeof params.id !== "string" || params.id === "") {
      return HubRefusal.invalidParams("id must be a string", "id").toJSON();
    }
    const taskId = params.id;
    const metadata = (params.metadata ?? {}) as Record<string, unknown>;
    const message: Message = params.message ?? { role: "ROLE_USER", parts: [] };
    const running = this.#running.get(taskId);
    if (running && !running.controller.signal.aborted) {
      // The client's answer to the handler's ctx.ask: the same handler goes on, in a new turn.
      if (running.asking && metadata[CONTINUATION_KEY] === true) {
        const resume = running.asking;
        running.asking = undefined;
        running.seq = 0;
        resume(message);
      }
      // Else the hub sent the execute again after a drop we came back from without having answered it; the
      // router starts no new turn while one runs, so this is the turn we are running.
      return undefined;
    }
    this.#start(taskId, params, metadata, message);
    return undefined;
  }

  #start(taskId: string, params: ExecuteParams, metadata: Record<string, unknown>, message: Message): void {
    const { skills, outbox } = this.#opts;
    const requested = typeof metadata.skill === "string" && metadata.skill !== "" ? metadata.skill : undefined;
    const entry = requested ? (skills.get(requested) ?? [...skills.values()].find((s) => s.definition.id === requested)) : skills.values().next().value;
    const controller = new AbortController();
    const run: TaskRun = { controller, seq: 0 };
    this.#running.set(taskId, run);
    const { signal } = controller;
    const send: SendFrame = (method, frameParams) => outbox.send({ method, params: { ...(frameParams as { task_id: string }), seq: ++run.seq } });
    const chunks: string[] = [];
    const ctx: TaskContext = {
      taskId,
      sessionId: typeof params.contextId === "string" ? params.contextId : typeof params.sessionId === "string" ? params.sessionId : "",
      skill: entry?.definition.name ?? requested ?? "",
      metadata,
      message,
      signal,
      artifact: (artifact: ArtifactInput) => (signal.aborted ? Promise.resolve() : send(HUB_METHODS.TASK_ARTIFACT, artifactParams(taskId, artifact))),
      status: (text: string) => (signal.aborted ? Promise.resolve() : send(HUB_METHODS.TASK_STATUS, statusParams(taskId, text, true))),
      ask: async (text: string) => {
        const answer = await this.#ask(run, send, taskId, text);
        chunks.length = 0;
        ctx.message = answer;
        return answer;
      },
    };
    const handler = entry ? entry.handler : this.#missingSkill(requested);
    this.#opts.onTask({ taskId, sessionId: ctx.sessionId, skill: ctx.skill });
    void (async () => {
      run.holdsSlot = await this.#slots.acquire(signal);
      if (!run.holdsSlot) return;
      try {
        await runTask(handler, textOf(message), ctx, send, chunks);
      } finally {
        this.#giveBack(run);
      }
    })()
      .catch((err: unknown) => this.#opts.logger.error(`task ${taskId}: ${messageOf(err)}`))
      .finally(() => {
        if (this.#running.get(taskId) === run) this.#running.delete(taskId);
      });
  }

  /**
   * Ends the turn `input-required` with the question, gives the slot back while the client thinks, and
   * resolves with the next message for the task (once a slot is free again). Rejects once the task is
   * canceled (or the agent closes): the handler's throw then sends nothing.
   */
  async #ask(run: TaskRun, send: SendFrame, taskId: string, text: string): Promise<Message> {
    const { signal } = run.controller;
    if (signal.aborted) throw signal.reason;
    if (run.asking) throw new Error("ctx.ask is already waiting for an answer");
    if (typeof text !== "string" || text === "") throw new TypeError("ctx.ask needs the question as a non-empty string");
    let canceled!: () => void;
    const answer = new Promise<Message>((resolve, reject) => {
      run.asking = resolve;
      canceled = () => reject(signal.reason);
      signal.addEventListener("abort", canceled, { once: true });
    });
    // Should the send below throw, nothing awaits the answer when a cancel rejects it: not an unhandled rejection.
    answer.catch(() => undefined);
    let message: Message;
    try {
      await send(HUB_METHODS.TASK_COMPLETE, completeParams(taskId, "input-required", text));
      this.#giveBack(run);
      message = await answer;
    } finally {
      signal.removeEventListener("abort", canceled);
    }
    run.holdsSlot = await this.#slots.acquire(signal);
    if (!run.holdsSlot) throw signal.reason;
    return message;
  }

  #giveBack(run: TaskRun): void {
    if (!run.holdsSlot) return;
    run.holdsSlot = false;
    this.#slots.release();
  }

  /** The tasks whose handler runs, waits for a slot or waits for an answer now. */
  runningIds(): string[] {
    const ids: string[] = [];
    for (const [taskId, run] of this.#running) if (!run.controller.signal.aborted) ids.push(taskId);
    return ids;
  }

  /** The hub canceled the task (a client cancel, a timeout, a shutdown): it is over either way. */
  cancel(taskId: string): void {
    const run = this.#running.get(taskId);
    if (!run) return;
    run.controller.abort(new Error("task canceled by the router"));
    this.#opts.outbox.forget(taskId);
  }

  /** Aborts every task, those waiting for a slot or an answer included. */
  stop(reason: Error): void {
    for (const run of this.#running.values()) run.controller.abort(reason);
    this.#running.clear();
  }

  #missingSkill(requested: string | undefined): SkillHandler {
    return () => {
      const { skills, name } = this.#opts;
      const known = [...skills.keys()].join(", ") || "none";
      throw new Error(requested ? `unknown skill "${requested}"; agent "${name}" has: ${known}` : `agent "${name}" has no skills`);
    };
  }
}
