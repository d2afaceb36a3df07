import PQueue from "p-queue";
import { HubRefusal } from "../../hub/wire/errors.js";
import type { Outbox } from "./outbox.js";
import { artifactParams, HUB_METHODS, statusParams, textOf, type ExecuteParams } from "./protocol.js";
import type { SkillEntry } from "./registration.js";
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

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * The tasks the hub hands the agent: picks the skill, runs turns (at most `concurrency` at once), numbers
 * each turn's updates, and aborts a turn when the hub cancels it.
 */
export class TaskDispatcher {
  #opts: DispatchOptions;
  #queue: PQueue;
  #running = new Map<string, AbortController>();

  constructor(options: DispatchOptions) {
    this.#opts = options;
    this.#queue = new PQueue({ concurrency: options.concurrency });
  }

  /** Takes a `task.execute`; returns a refusal for params it cannot run. */
  execute(params: ExecuteParams): ExecuteRefusal | undefined {
    if (typeof params.id !== "string" || params.id === "") {
      return HubRefusal.invalidParams("id must be a string", "id").toJSON();
    }
    const { skills, outbox } = this.#opts;
    const taskId = params.id;
    // The hub sends an execute again when we came back from a drop without having answered it; the router
    // starts no new turn while one runs, so this is the turn we are running.
    const running = this.#running.get(taskId);
    if (running && !running.signal.aborted) return undefined;
    const metadata = (params.metadata ?? {}) as Record<string, unknown>;
    const message: Message = params.message ?? { role: "ROLE_USER", parts: [] };
    const requested = typeof metadata.skill === "string" && metadata.skill !== "" ? metadata.skill : undefined;
    const entry = requested ? (skills.get(requested) ?? [...skills.values()].find((s) => s.definition.id === requested)) : skills.values().next().value;
    const controller = new AbortController();
    this.#running.set(taskId, controller);
    const { signal } = controller;
    // Each turn numbers its updates from 1: the hub acks a re-sent copy instead of logging it twice.
    let seq = 0;
    const send: SendFrame = (method, frameParams) => outbox.send({ method, params: { ...(frameParams as { task_id: string }), seq: ++seq } });
    const ctx: TaskContext = {
      taskId,
      sessionId: typeof params.contextId === "string" ? params.contextId : typeof params.sessionId === "string" ? params.sessionId : "",
      skill: entry?.definition.name ?? requested ?? "",
      metadata,
      message,
      signal,
      artifact: (artifact: ArtifactInput) => (signal.aborted ? Promise.resolve() : send(HUB_METHODS.TASK_ARTIFACT, artifactParams(taskId, artifact))),
      status: (text: string) => (signal.aborted ? Promise.resolve() : send(HUB_METHODS.TASK_STATUS, statusParams(taskId, text, true))),
    };
    const handler = entry ? entry.handler : this.#missingSkill(requested);
    this.#opts.onTask({ taskId, sessionId: ctx.sessionId, skill: ctx.skill });
    void this.#queue
      .add(async () => {
        if (!signal.aborted) await runTask(handler, textOf(message), ctx, send);
      })
      .catch((err: unknown) => this.#opts.logger.error(`task ${taskId}: ${messageOf(err)}`))
      .finally(() => {
        if (this.#running.get(taskId) === controller) this.#running.delete(taskId);
      });
    return undefined;
  }

  /** The tasks whose turn runs (or waits for a slot) now. */
  runningIds(): string[] {
    const ids: string[] = [];
    for (const [taskId, controller] of this.#running) if (!controller.signal.aborted) ids.push(taskId);
    return ids;
  }

  /** The hub canceled the task (a client cancel, a timeout, a shutdown): it is over either way. */
  cancel(taskId: string): void {
    const controller = this.#running.get(taskId);
    if (!controller) return;
    controller.abort(new Error("task canceled by the router"));
    this.#opts.outbox.forget(taskId);
  }

  /** Aborts every turn and drops the ones waiting for a slot. */
  stop(reason: Error): void {
    this.#queue.clear();
    for (const controller of this.#running.values()) controller.abort(reason);
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
