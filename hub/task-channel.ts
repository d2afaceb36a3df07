import { Fifo } from "../router/core/fifo.js";
import type { AgentUpdate } from "../router/core/model.js";
import type { HubRequest } from "./wire/frames.js";

/**
 * Told once for each update handed over with `send`: true once it is durable, false when the turn ended without
 * it; with the bytes and task the update was sent with. One object per hub connection, so that an update costs no
 * promise or closure of its own (those were ~670 B of the ~5.5 KB a relayed event allocates, fourteenth pass).
 */
export interface DurableSink {
  settled(durable: boolean, bytes: number, taskId: string): void;
}

interface Routed {
  /**
   * Until handed to the engine: a Routed lives on until its update is stored (its settlement), and the engine's
   * event is another object by then, so holding the update too only kept it alive across scavenges.
   */
  update: AgentUpdate | undefined;
  /** Settles the update's `push` promise, when it was pushed that way. */
  resolve: ((durable: boolean) => void) | undefined;
  /** Told instead, when it was sent (`send`). */
  sink: DurableSink | undefined;
  bytes: number;
  taskId: string;
  /** How it settled, once it has. */
  state: boolean | undefined;
  /** `latest` waits made while it had not settled. */
  waiters: Array<(durable: boolean) => void> | undefined;
}

function settle(item: Routed, durable: boolean): void {
  if (item.state !== undefined) return;
  item.state = durable;
  item.resolve?.(durable);
  item.sink?.settled(durable, item.bytes, item.taskId);
  if (item.waiters) for (const w of item.waiters) w(durable);
}

function settleAll(items: Routed[], durable: boolean): void {
  for (const item of items) settle(item, durable);
}

const DONE: IteratorReturnResult<undefined> = Object.freeze({ done: true, value: undefined });

/**
 * One turn a hub agent is working on: the agent's updates on their way to the engine, and when each one
 * is durable (the hub acks an update only then, CONTRACT 12).
 *
 * It is the engine's AsyncIterator of the turn's updates itself, not a generator over a queue: an update
 * is taken when the engine asks for the next one (it has appended this one to the log's commit queue by
 * then) or stops asking. Every update of a fast agent passes here: `send` costs it one small record, no promise.
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
  /** The last update handed over, for `latest`. */
  #last: Routed | undefined;

  /** `flushed`: the engine's ExecuteContext.flushed of this turn. */
  constructor(readonly flushed: () => Promise<boolean>) {}

  /**
   * Hands an update to the engine. Resolves true once it is durable in the store, false when the turn
   * ended before the engine took it (or the store could not take it: such an update is never acked).
   */
  push(update: AgentUpdate): Promise<boolean> {
    if (this.#ended || this.#finished) return Promise.resolve(false);
    return new Promise<boolean>((resolve) => this.#hand(update, resolve, undefined, 0, ""));
  }

  /** `push` told to `sink` (with `bytes` and `taskId`) instead of a promise: the hub's path for every update. */
  send(update: AgentUpdate, sink: DurableSink, bytes: number, taskId: string): void {
    if (this.#ended || this.#finished) return sink.settled(false, bytes, taskId);
    this.#hand(update, undefined, sink, bytes, taskId);
  }

  #hand(update: AgentUpdate, resolve: Routed["resolve"], sink: DurableSink | undefined, bytes: number, taskId: string): void {
    this.pushed++;
    const item: Routed = { update, resolve, sink, bytes, taskId, state: undefined, waiters: undefined };
    this.#last = item;
    const waiting = this.#waiting;
    if (waiting) {
      this.#waiting = undefined;
      this.#current = item;
      item.update = undefined;
      waiting.resolve({ done: false, value: update });
    } else {
      this.#items.push(item);
    }
  }

  /** Settles when the last update pushed is durable (or dropped): the ack of a re-sent duplicate waits on it. */
  get latest(): Promise<boolean> {
    const last = this.#last;
    if (!last) return Promise.resolve(true);
    if (last.state !== undefined) return Promise.resolve(last.state);
    return new Promise((resolve) => (last.waiters ??= []).push(resolve));
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
      const update = item.update!;
      item.update = undefined;
      return Promise.resolve({ done: false, value: update });
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
    for (const item of this.#items.drain()) settle(item, false);
  }
}
