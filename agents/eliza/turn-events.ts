/**
 * The runtime events of one turn (events.ts lists them): MESSAGE_RECEIVED and RUN_STARTED before the agent
 * thinks, RUN_ENDED (or RUN_TIMEOUT) and MESSAGE_SENT once the turn's answer is out. The closing ones are
 * not awaited: the turn's final update is already on its way, and a slow handler must not hold the task.
 */
import { randomUUID } from "node:crypto";
import { EventType, type RunEventPayload } from "./events.js";
import type { AgentRuntime } from "./runtime.js";
import type { Memory } from "./types.js";

/** What every run event of the turn carries. */
type RunFields = Pick<RunEventPayload, "runId" | "messageId" | "roomId" | "entityId" | "startTime" | "source">;

export class TurnEvents {
  readonly #runtime: AgentRuntime;
  readonly #message: Memory & { id: string };
  readonly #run: RunFields;

  constructor(runtime: AgentRuntime, message: Memory & { id: string }) {
    this.#runtime = runtime;
    this.#message = message;
    this.#run = {
      runId: randomUUID(),
      messageId: message.id,
      roomId: message.roomId,
      entityId: message.entityId,
      startTime: Date.now(),
      source: message.content.source,
    };
  }

  /** MESSAGE_RECEIVED, then RUN_STARTED; resolves once their handlers are done. */
  async started(): Promise<void> {
    await this.#runtime.emitEvent(EventType.MESSAGE_RECEIVED, { message: this.#message, source: this.#message.content.source });
    await this.#runtime.emitEvent(EventType.RUN_STARTED, { ...this.#run, status: "started" });
  }

  /** RUN_ENDED, or RUN_TIMEOUT when `timedOut`; `error` names why a turn failed or was canceled. */
  ended(options: { error?: string; timedOut?: boolean } = {}): void {
    const endTime = Date.now();
    const payload = { ...this.#run, endTime, duration: endTime - this.#run.startTime, ...(options.error !== undefined && { error: options.error }) };
    if (options.timedOut) void this.#runtime.emitEvent(EventType.RUN_TIMEOUT, { ...payload, status: "timeout" });
    else void this.#runtime.emitEvent(EventType.RUN_ENDED, { ...payload, status: "completed" });
  }

  /** MESSAGE_SENT with the persisted assistant memory. */
  sent(reply: Memory): void {
    void this.#runtime.emitEvent(EventType.MESSAGE_SENT, { message: reply, source: this.#message.content.source });
  }
}
