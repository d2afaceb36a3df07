import { AsyncQueue } from "../router/core/async-queue.js";
import type { AgentUpdate } from "../router/core/model.js";

interface Routed {
  update: AgentUpdate;
  /** Called once the engine took the update (true) or the turn ended without it (false). */
  taken: (taken: boolean) => void;
}

/**
 * One turn a hub agent is working on: the agent's updates on their way to the engine, and when each one
 * is durable (the hub acks an update only then, CONTRACT 12).
 */
export class TaskChannel {
  /** Whether the agent already sent text in a task.status (else task.complete's text comes in two events). */
  sawText = false;
  /** Id of the task.execute request, while the agent has not answered it. */
  requestId: string | undefined;
  /** The task.execute frame, sent again to an agent that comes back without having answered it. */
  executeFrame: object | undefined;
  /** The highest update seq taken this turn: a re-sent update (after a reconnect) carries one already seen. */
  lastSeq = 0;
  #queue = new AsyncQueue<Routed>();
  #untaken = new Set<(taken: boolean) => void>();
  #latest: Promise<boolean> = Promise.resolve(true);

  /** `flushed`: the engine's ExecuteContext.flushed of this turn. */
  constructor(readonly flushed: () => Promise<boolean>) {}

  /**
   * Hands an update to the engine. Resolves true once it is durable in the store, false when the turn
   * ended before the engine took it.
   */
  push(update: AgentUpdate): Promise<boolean> {
    if (this.#queue.ended) return Promise.resolve(false);
    let settle!: (taken: boolean) => void;
    const taken = new Promise<boolean>((resolve) => {
      settle = (ok) => {
        this.#untaken.delete(settle);
        resolve(ok);
      };
    });
    this.#untaken.add(settle);
    this.#queue.push({ update, taken: settle });
    // ctx.flushed covers what the engine has taken so far, so it is asked only once the update was taken.
    // False when the store could not take it (the task is failed): such an update is never acked.
    this.#latest = taken.then((ok) => (ok ? this.flushed() : false));
    return this.#latest;
  }

  /** Settles when the last update pushed is durable (or dropped): the ack of a re-sent duplicate waits on it. */
  get latest(): Promise<boolean> {
    return this.#latest;
  }

  /** No more updates; `error` fails the turn once the updates already pushed are taken. */
  end(error?: Error): void {
    this.#queue.end(error);
  }

  /** The updates, as the engine consumes them (ExecuteContext's AsyncIterable). */
  async *updates(): AsyncGenerator<AgentUpdate> {
    try {
      for await (const item of this.#queue) {
        try {
          yield item.update;
        } finally {
          // Resumed (or closed) by the engine: it has appended the update to the log's commit queue.
          item.taken(true);
        }
      }
    } finally {
      for (const settle of [...this.#untaken]) settle(false);
    }
  }
}
