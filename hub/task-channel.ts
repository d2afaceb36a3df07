import { Fifo } from "../router/core/fifo.js";
import type { AgentUpdate } from "../router/core/model.js";
import type { HubRequest } from "./wire/frames.js";

interface Routed {
  update: AgentUpdate;
  /** Settles the update's `push`: true once durable, false when the turn ended without it. */
  settle: (durable: boolean) => void;
}

function settleAll(items: Routed[], durable: boolean): void {
  for (const item of items) item.settle(durable);
}

const DONE: IteratorReturnResult<undefined> = Object.freeze({ done: true, value: undefined });

/**
 * One turn a hub agent is working on: the agent's updates on their way to the engine, and when each one
 * is durable (the hub acks an update only then, CONTRACT 12).
 *
 * It is the engine's AsyncIterator of the turn's updates itself, not a generator over a queue: an update
 * is taken when the engine asks for the next one (it has appended this one to the log's commit queue by
 * then) or stops asking. Every update of a fast agent passes here, so it costs one promise of its own.
 */
export class TaskChannel implements AsyncIterableIterator<AgentUpdate, undefined> {
  /** Whether the agent already sent text in a task.status (else task.complete's text comes in two events). */
  sawText = false;
  /** Id of the task.execute request, while the agent has not answered it. */
  requestId: string | undefined;
  /** The task.execute frame, sent again to an agent that comes back without it (see HubAgentConnector.attach). */
  executeFrame: HubRequest | undefined;
  /** Updates pushed this turn (a protocol 2 agent that ends its turn `rejected` before any other rejects the request). */
  pushed = 0;
  /** The highest update seq taken this turn: a re-sent update (after a reconnect) carries one already seen. */
  lastSeq = 0;
  /** Pushed, not yet handed to the engine. */
  #items = new Fifo<Routed>();
  /** Handed to the engine, taken once it asks for the next. */
  #current: Routed | undefined;
  #ended = false;
  /** Iteration is over (the engine stopped, or read to the end): later pushes are dropped. */
  #finished = false;
  #error: Error | undefined;
  /** The engine waiting for an update. */
  #waiting: { resolve: (r: IteratorResult<AgentUpdate, undefined>) => void; reject: (err: Error) => void } | undefined;
  #latest: Promise<boolean> = Promise.resolve(true);

  /** `flushed`: the engine's ExecuteContext.flushed of this turn. */
  constructor(readonly flushed: () => Promise<boolean>) {}

  /**
   * Hands an update to the engine. Resolves true once it is durable in the store, false when the turn
   * ended before the engine took it (or the store could not take it: such an update is never acked).
   */
  push(update: AgentUpdate): Promise<boolean> {
    if (this.#ended || this.#finished) return Promise.resolve(false);
    this.pushed++;
    this.#latest = new Promise<boolean>((settle) => {
      const item = { update, settle };
      const waiting = this.#waiting;
      if (waiting) {
        this.#waiting = undefined;
        this.#current = item;
        waiting.resolve({ done: false, value: update });
      } else {
        this.#items.push(item);
      }
    });
    return this.#latest;
  }

  /** Settles when the last update pushed is durable (or dropped): the ack of a re-sent duplicate waits on it. */
  get latest(): Promise<boolean> {
    return this.#latest;
  }

  /** No more updates; `error` fails the turn once the updates already pushed are taken. */
  end(error?: Error): void {
    if (this.#ended) return;
    this.#ended = true;
    this.#error = error;
    const waiting = this.#waiting;
    if (!waiting) return;
    this.#waiting = undefined;
    this.#finish();
    if (error) waiting.reject(error);
    else waiting.resolve(DONE);
  }

  /** The updates, as the engine consumes them (ExecuteContext's AsyncIterable). */
  updates(): AsyncIterableIterator<AgentUpdate, undefined> {
    return this;
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  next(): Promise<IteratorResult<AgentUpdate, undefined>> {
    this.#take();
    if (this.#finished) return Promise.resolve(DONE);
    const item = this.#items.shift();
    if (item) {
      this.#current = item;
      return Promise.resolve({ done: false, value: item.update });
    }
    if (this.#ended) {
      this.#finish();
      return this.#error ? Promise.reject(this.#error) : Promise.resolve(DONE);
    }
    return new Promise((resolve, reject) => (this.#waiting = { resolve, reject }));
  }

  /** The engine stopped reading (the turn ended): what it had is taken, the rest never will be. */
  async return(): Promise<IteratorResult<AgentUpdate, undefined>> {
    this.#take();
    this.#finish();
    return DONE;
  }

  /** The update handed out last has been appended: it is durable once the store has what was taken so far. */
  #take(): void {
    const item = this.#current;
    if (!item) return;
    this.#current = undefined;
    // One wait on the store for the updates taken in this turn of the event loop, not one per update: they go
    // to the store in the same commit, and a wait asked after the last of them covers them all (should the
    // store give up on that commit, all of them are reported unstored, as they are).
    this.#taken.push(item);
    if (this.#taken.length === 1) setImmediate(this.#settleTaken);
  }

  /** Taken this turn of the event loop, waiting for their wait on the store. */
  #taken: Routed[] = [];

  readonly #settleTaken = (): void => {
    const taken = this.#taken;
    this.#taken = [];
    this.flushed().then(
      (durable) => settleAll(taken, durable),
      () => settleAll(taken, false),
    );
  };

  #finish(): void {
    if (this.#finished) return;
    this.#finished = true;
    for (const item of this.#items.drain()) item.settle(false);
  }
}
