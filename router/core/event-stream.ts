import type { Logger } from "pino";
import type { EngineCluster } from "./cluster.js";
import type { LiveTask } from "./engine-types.js";
import { isTerminal, TURN_END_STATES, type StreamEvent, type TaskStatus } from "./model.js";
import type { SharedLog } from "./shared-log.js";
import type { TaskStore } from "./store.js";
import { CLOSED, OVERFLOW, Subscriber } from "./subscriber.js";
import { isTurnEnd, unstoredFailure } from "./turn-rules.js";

/** What an EventStream reads from its engine (one host, shared by every stream of the engine). */
export interface EventStreamHost {
  store: TaskStore;
  /** Log pages for streams catching up, shared by streams that read the same events (see SharedLog). */
  pages: SharedLog;
  options: { logPageSize: number; subscriberCapacity: number; streamBufferBytes: number };
  log: Logger;
  /** The task's turn in progress on this instance, if any. */
  live(taskId: string): LiveTask | undefined;
  /** The failed status of a task failed for want of storage, until that failure is stored. */
  unstoredFailure(taskId: string): TaskStatus | undefined;
  cluster?: EngineCluster;
  /** A live stream fell behind and went back to reading the log (counted for metrics). */
  onFallback(): void;
  /** Resolves once the task's log grows past `afterSeq` or a turn of it starts, or `signal` aborts. */
  nextTurn(taskId: string, afterSeq: number, signal: AbortSignal): Promise<void>;
}

type Batch = IteratorResult<StreamEvent[], undefined>;

const DONE: IteratorReturnResult<undefined> = Object.freeze({ done: true, value: undefined });
/** The log reading caught up with the live turn: the stream reads its live buffer from now on. */
const LIVE = Symbol("live");
/** Names each stream to the shared log (SharedLog.read's `reader`). */
let streamsMade = 0;

/**
 * One reader's events of a task (what `TaskEngine.events` answers): first from the log, then live, back to
 * the log when the reader falls behind. An async iterator of events, or a batch at a time with `nextBatch`
 * or `read` (transports write a batch in one go). `close()` ends it at once, also while it waits for live
 * events, and takes it off the live task.
 *
 * Thousands of streams sit idle at a time, so an idle stream holds as little as it can: this object, its
 * live buffer and the one callback it waits with. The reading is a state machine rather than a generator (a
 * suspended generator per layer kept its frame and a chain of promises for the stream's whole life), and
 * there is no AbortSignal of its own: a transport calls `close()` when its client goes away. A caller's
 * signal closes it too.
 */
export class EventStream implements AsyncIterableIterator<StreamEvent, undefined> {
  readonly #host: EventStreamHost;
  readonly #taskId: string;
  readonly #reader = ++streamsMade;
  /** Goes on through the turns that follow one ending in input-required (a resubscription), until the task ends. */
  readonly #untilTaskEnds: boolean;
  /** The seq of the last event handed out. */
  #cursor: number;
  /** The last batch handed out ended a turn at this seq: whether the stream ends is decided at the next read. */
  #turnEndAt: number | undefined;
  /** The live turn whose events this stream takes as they are committed, and its buffer for them. */
  #live: LiveTask | undefined;
  #sub: Subscriber | undefined;
  #over = false;
  #closed = false;
  /** Made on first use only: the cluster's wait for another instance's append takes a signal. */
  #aborter: AbortController | undefined;
  /** Takes the close off a caller's signal once the stream is over. */
  #unlisten: (() => void) | undefined;
  /** The batch `next` is handing out event by event. */
  #batch: StreamEvent[] | undefined;
  #at = 0;

  constructor(host: EventStreamHost, taskId: string, afterSeq: number, signal?: AbortSignal, untilTaskEnds = false) {
    this.#host = host;
    this.#taskId = taskId;
    this.#untilTaskEnds = untilTaskEnds;
    this.#cursor = afterSeq;
    if (signal?.aborted) this.close();
    else if (signal) {
      const onAbort = () => this.close();
      signal.addEventListener("abort", onAbort, { once: true });
      this.#unlisten = () => signal.removeEventListener("abort", onAbort);
    }
  }

  /**
   * The seq of the last event handed out; before the first, the seq the stream starts after. A transport
   * without per-message ids (gRPC) tells its client this once, and the client counts from it.
   */
  get position(): number {
    return this.#cursor;
  }

  /**
   * The next batch of events in log order, never empty: a page of the log (at most logPageSize events and
   * about streamBufferBytes bytes), or what the live turn committed since the last batch. Done after a
   * turn-ending event that nothing follows, or once closed. One read at a time.
   */
  nextBatch(): Promise<Batch> {
    return new Promise((resolve, reject) => this.read((batch) => resolve(batch ? { done: false, value: batch } : DONE), reject));
  }

  /**
   * `nextBatch` by callback, for transports that hold thousands of idle streams: a stream waiting for live
   * events holds the one callback it waits with, not a chain of promises. `done` gets the next batch, or
   * undefined once the stream is over; `failed` gets an error reading the log. Either may run before `read`
   * returns; neither may throw.
   */
  read(done: (batch: StreamEvent[] | undefined) => void, failed: (err: unknown) => void): void {
    if (this.#over || this.#closed) return done(undefined);
    const sub = this.#sub;
    if (!sub) return this.#readLog(done, failed);
    const got = sub.poll();
    if (got === undefined) return sub.onReady(() => this.read(done, failed));
    if (got === CLOSED) return done(this.#end());
    if (got === OVERFLOW) {
      this.#leaveLive();
      this.#host.onFallback();
      return this.#readLog(done, failed);
    }
    if (got[0]!.seq !== undefined && got[0]!.seq <= this.#cursor) {
      // Joined while the store was ahead of the fan-out (see #fromLog): these were read from the log.
      const cursor = this.#cursor;
      const fresh = got.filter((e) => e.seq === undefined || e.seq > cursor);
      if (fresh.length === 0) return this.read(done, failed);
      return this.#deliver(fresh, done);
    }
    this.#deliver(got, done);
  }

  #deliver(got: StreamEvent[], done: (batch: StreamEvent[] | undefined) => void): void {
    // A batch ends at the turn's end, or at a failure that could not be logged (no seq).
    const end = got.findIndex((e) => e.seq === undefined || isTurnEnd(e));
    if (end >= 0) {
      const last = got[end]!;
      if (this.#untilTaskEnds && last.seq !== undefined && last.kind === "status" && !isTerminal(last.status.state)) {
        // The turn waits for input: the next one is read from the log once it starts (see #fromLog).
        this.#cursor = last.seq;
        this.#turnEndAt = last.seq;
        this.#leaveLive();
        return done(end === got.length - 1 ? got : got.slice(0, end + 1));
      }
      this.#end();
      return done(end === got.length - 1 ? got : got.slice(0, end + 1));
    }
    this.#cursor = got[got.length - 1]!.seq!;
    done(got);
  }

  next(): Promise<IteratorResult<StreamEvent, undefined>> {
    const batch = this.#batch;
    if (batch && this.#at < batch.length) return Promise.resolve({ done: false, value: batch[this.#at++]! });
    this.#batch = undefined;
    return this.nextBatch().then((r) => {
      if (r.done) return DONE;
      this.#batch = r.value;
      this.#at = 0;
      return this.next();
    });
  }

  /** Ends the stream (never the task): a pending read ends, and the stream leaves the live task now. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#batch = undefined;
    const sub = this.#sub;
    this.#end();
    sub?.close();
    this.#aborter?.abort();
  }

  async return(): Promise<IteratorResult<StreamEvent, undefined>> {
    this.close();
    return DONE;
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  /**
   * A page of the log is handed out in a job of its own. Stores whose reads answer at once (the SQLite
   * store reads on this thread, the memory store) would otherwise let a reader that keeps up catch up on a
   * whole log within one job: every other stream and request waits for it, and every event read stays
   * alive until it ends (V8 keeps a WeakRef's target for the rest of the job, and the shared log hands
   * out pages through WeakRefs): a 200 MB log held at once.
   */
  #readLog(done: (batch: StreamEvent[] | undefined) => void, failed: (err: unknown) => void): void {
    this.#fromLog().then((batch) => {
      if (batch === LIVE) this.read(done, failed);
      else if (batch) setImmediate(done, batch);
      else done(batch);
    }, failed);
  }

  /**
   * Reads on from the log until there is a batch, the stream is over (undefined), or it has caught up with
   * the live turn and takes its events from now on (LIVE).
   */
  async #fromLog(): Promise<StreamEvent[] | undefined | typeof LIVE> {
    const { store, pages, options, log } = this.#host;
    const taskId = this.#taskId;
    if (this.#turnEndAt !== undefined) {
      const seq = this.#turnEndAt;
      this.#turnEndAt = undefined;
      // A task waiting for input is waited on below, by a stream that goes on until the task ends.
      if (!this.#untilTaskEnds && !(await this.#continuesAfter(seq))) return this.#end();
    }
    for (;;) {
      if (this.#closed) return this.#end();
      const cursor = this.#cursor;
      // Pages are bounded in bytes as well as in events, so catching up on large events holds no more than
      // a live stream may (CONTRACT 12).
      const page = await pages.read(taskId, cursor, options.logPageSize, this.#heldBytes(), this.#reader);
      // A log must go cursor+1, cursor+2, ...: anything else (a store written by two routers) would repeat
      // or loop forever, so it ends the stream loudly instead.
      for (let i = 0; i < page.length; i++) {
        const event = page[i]!;
        if (event.seq !== (i === 0 ? cursor : page[i - 1]!.seq) + 1) {
          log.error({ task: taskId, after: i === 0 ? cursor : page[i - 1]!.seq, got: event.seq }, "task log is not contiguous; ending the stream");
          this.#end();
          return i > 0 ? page.slice(0, i) : undefined;
        }
      }
      if (page.length > 0) {
        const last = page[page.length - 1]!;
        this.#cursor = last.seq;
        if (isTurnEnd(last)) this.#turnEndAt = last.seq;
        // A page may be short because of its byte bound, not because the log ended: the next read goes on.
        return page;
      }
      const live = this.#host.live(taskId);
      if (!live) {
        // The turn may have ended (and left the live tasks) while we read: its final event is in the log then.
        if ((await store.readEvents(taskId, cursor, 1)).length > 0) continue;
        // Failed for want of storage: the log stops short, the stream still ends with the failure.
        const failed = this.#host.unstoredFailure(taskId);
        if (failed) {
          const task = await store.getTask(taskId);
          this.#end();
          return task ? [unstoredFailure(task, failed)] : undefined;
        }
        // Or it runs on another instance: wait for that instance's next append, then read the log again.
        const elsewhere = this.#host.cluster && (await this.#elsewhere(cursor));
        if (elsewhere === "appended") continue;
        if (elsewhere === "running") {
          await this.#host.cluster!.waitForAppend(taskId, cursor, this.#signal());
          continue;
        }
        if (this.#untilTaskEnds) {
          const after = await this.#afterTurnEnd(cursor);
          if (after === "appended") continue;
          if (after === "waiting") {
            await this.#host.nextTurn(taskId, cursor, this.#signal());
            continue;
          }
        }
        return this.#end();
      }
      // The log is behind what the fan-out has sent: read on. It can also be ahead of it: a store whose reads
      // see a commit before its answer has come back (the SQLite writer thread) — then the stream joins now
      // and skips the events it already read when the fan-out delivers them.
      if (live.committedSeq > cursor) continue;
      if (this.#closed) return this.#end();
      const sub = new Subscriber(options.subscriberCapacity, this.#heldBytes());
      live.subscribers.add(sub);
      this.#live = live;
      this.#sub = sub;
      return LIVE;
    }
  }

  /** The stream is over (its turn ended, or it was closed): a read answers undefined from now on. */
  #end(): undefined {
    this.#over = true;
    this.#leaveLive();
    this.#unlisten?.();
    this.#unlisten = undefined;
    return undefined;
  }

  #leaveLive(): void {
    if (this.#sub) this.#live?.subscribers.delete(this.#sub);
    this.#live = undefined;
    this.#sub = undefined;
  }

  #signal(): AbortSignal {
    if (!this.#aborter) {
      this.#aborter = new AbortController();
      if (this.#closed) this.#aborter.abort();
    }
    return this.#aborter.signal;
  }

  /**
   * Cluster mode, for a task this instance does not run: "appended" when its log grew past `cursor` (since
   * the last read: the task and its events are stored together), "running" when its turn is open on another
   * instance, undefined when there is nothing to wait for.
   */
  async #elsewhere(cursor: number): Promise<"appended" | "running" | undefined> {
    const task = await this.#host.store.getTask(this.#taskId);
    if (!task) return undefined;
    if (task.lastSeq > cursor) return "appended";
    return !TURN_END_STATES.has(task.status.state) && !this.#host.live(this.#taskId) ? "running" : undefined;
  }

  /**
   * The bytes of events a stream may hold at once: half its budget, because while a stream writes an event
   * it holds it twice, parsed and rendered for its socket (CONTRACT 12 bounds the total).
   */
  #heldBytes(): number {
    return Math.max(1, Math.floor(this.#host.options.streamBufferBytes / 2));
  }

  /**
   * For a stream that goes on until the task ends, read once it caught up with a turn's end: "appended" when
   * the log grew past `cursor` (a next turn came, and may have ended, since the log was read: the task and its
   * events are stored together, so one read of the task tells), "waiting" when the task waits for input
   * (input-required, auth-required), undefined when it is over. Reading the state alone lost a next turn that
   * started and ended between the stream's reads: the stream saw "completed" and ended without its events.
   */
  async #afterTurnEnd(cursor: number): Promise<"appended" | "waiting" | undefined> {
    const task = await this.#host.store.getTask(this.#taskId);
    if (!task) return undefined;
    if (task.lastSeq > cursor) return "appended";
    return TURN_END_STATES.has(task.status.state) && !isTerminal(task.status.state) ? "waiting" : undefined;
  }

  /** Whether anything follows a turn-ending event: a later logged event, or a turn that has started since. */
  async #continuesAfter(seq: number): Promise<boolean> {
    const live = this.#host.live(this.#taskId);
    if (live && live.turnFromSeq >= seq) return true;
    return (await this.#host.store.readEvents(this.#taskId, seq, 1)).length > 0;
  }
}
