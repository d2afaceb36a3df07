/**
 * One heartbeat timer per interval for every open stream, instead of a timer per stream: with thousands of
 * idle streams, a Timeout, its closure and its re-arming on every write were a measurable part of what each
 * stream held. The clock ticks every quarter interval; a stream pings once a full interval of ticks has
 * passed since it last wrote, so an idle stream pings every interval, and a stream that just wrote pings
 * no later than an interval after that write (and never sooner than three quarters of one).
 */

/**
 * Ticks per interval: the finer, the closer a stream's first ping after a write comes to a full interval.
 * Intervals under 4 ms tick every millisecond (timers are no finer).
 */
const TICKS_PER_BEAT = 4;

/** What the heartbeat pings: a stream that knows the tick of its last write. */
export interface Beating {
  /** The tick of the stream's last write (its ping's included). */
  readonly wroteAt: number;
  /** Writes the heartbeat; the stream records `tick` as its last write. */
  ping(tick: number): void;
}

/** The streams sharing one heartbeat interval, and the one timer that paces them while any is open. */
export class Heartbeat {
  readonly intervalMs: number;
  readonly #ticksPerBeat: number;
  #streams = new Set<Beating>();
  #tick = 0;
  #timer: NodeJS.Timeout | undefined;

  constructor(intervalMs: number) {
    this.intervalMs = intervalMs;
    this.#ticksPerBeat = Math.max(1, Math.min(TICKS_PER_BEAT, Math.floor(intervalMs)));
  }

  /** The current tick: a stream stamps its writes with it (a field store, no clock read, no timer). */
  get tick(): number {
    return this.#tick;
  }

  /** Open streams on this heartbeat. */
  get size(): number {
    return this.#streams.size;
  }

  add(stream: Beating): void {
    this.#streams.add(stream);
    if (this.#timer) return;
    this.#timer = setInterval(() => this.#beat(), this.intervalMs / this.#ticksPerBeat);
    // Like the per-stream timers it replaces: open streams alone never keep the process alive.
    this.#timer.unref();
  }

  /** Takes a stream off (it closed); the timer stops with the last one. */
  delete(stream: Beating): void {
    this.#streams.delete(stream);
    if (this.#streams.size > 0 || !this.#timer) return;
    clearInterval(this.#timer);
    this.#timer = undefined;
  }

  #beat(): void {
    const tick = ++this.#tick;
    for (const stream of this.#streams) if (tick - stream.wroteAt >= this.#ticksPerBeat) stream.ping(tick);
  }
}

const heartbeats = new Map<number, Heartbeat>();

/** The shared heartbeat of an interval (streams of one router share one interval: one timer). */
export function heartbeatEvery(intervalMs: number): Heartbeat {
  let beat = heartbeats.get(intervalMs);
  if (!beat) heartbeats.set(intervalMs, (beat = new Heartbeat(intervalMs)));
  return beat;
}
