import { randomUUID } from "node:crypto";
import type { Logger } from "pino";
import type { RawData, WebSocket } from "ws";
import { failure, success, type RpcId } from "../router/jsonrpc/envelope.js";
import { HubRefusal, toHubRefusal } from "./wire/errors.js";
import type { HubAgentConnector } from "./hub-agent-connector.js";
import { IngestRate, type Senders } from "./ingest-rate.js";
import { HUB_CLOSE_CODES, HUB_DEFAULTS } from "./protocol.js";

/** Timing of one connection's liveness checks, and the rate it may send at. */
export interface LivenessOptions {
  /** No frame and no pong for this long: the socket is cut. */
  timeoutMs: number;
  /** Not registered by then: the socket is closed, however lively it is. */
  registerTimeoutMs: number;
  /** Bytes per second the agent may send (`limits.hubBytesPerSecond`); absent or 0: unlimited. */
  bytesPerSecond?: number;
  /**
   * Bytes per second the agent may send while another agent connection is sending too
   * (`limits.hubSharedBytesPerSecond`, told apart by `senders`); absent or 0: no such limit.
   */
  sharedBytesPerSecond?: number;
  /** The hub's record of who is sending, shared by all its connections. */
  senders?: Senders;
}

/**
 * A shared rate lets a connection send this many seconds' worth at once: when another agent starts sending, a
 * flood already under way gets only this far ahead.
 */
const SHARED_BURST_SECONDS = 0.1;

/** Unstored update bytes at which an agent's socket is paused, and resumed. */
const FLOW_HIGH_BYTES = 256 * 1024;
const FLOW_LOW_BYTES = FLOW_HIGH_BYTES / 2;

/** What a connection reports to the hub. */
export interface ConnectionEvents {
  frame(conn: HubConnection, data: RawData, isBinary: boolean): void;
  /** The connection is gone; `agentLeft`: the agent closed it on purpose (a close frame of its own). */
  dropped(conn: HubConnection, why: string, agentLeft: boolean): void;
  /** The socket rests for going past a rate: its own (`limits.hubBytesPerSecond`) or the shared one. */
  rested(conn: HubConnection, limit: RateLimit): void;
}

/** Which rate a resting agent went past. */
export type RateLimit = "own" | "shared";

/**
 * One agent socket and its liveness: ws-level pings, the silence timeout, the registration deadline, and
 * answers sent in the order their requests came (an ack may wait for the store; the ones after it wait too).
 */
export class HubConnection {
  readonly id = randomUUID();
  /** The agent this socket registered as, once it has. */
  agent: HubAgentConnector | undefined;
  #silence: NodeJS.Timeout | undefined;
  #pinger: NodeJS.Timeout | undefined;
  #registerBy: NodeJS.Timeout | undefined;
  /** Close code implied by a protocol error ws reported before closing. */
  #error: number | undefined;
  #answers: Promise<void> = Promise.resolve();
  #gone = false;
  /** Bytes of this agent's task updates received and not yet stored (or dropped). */
  #unstored = 0;
  /** Not read: its updates wait for the store (`hold`). */
  #paused = false;
  /** Not read: it sent more than its rate allows, until this timer fires. */
  #resting: NodeJS.Timeout | undefined;
  #rate: IngestRate | undefined;
  #sharedRate: IngestRate | undefined;
  /**
   * Frames read before a rest stopped the socket (libuv reads on while data keeps coming, and ws hands over
   * every frame of what was read at once): they are taken at the rate too, in order, when the rest ends.
   */
  #deferred: Array<[RawData, boolean]> = [];

  constructor(
    readonly ws: WebSocket,
    /** The token the upgrade carried, if any. */
    readonly token: string | undefined,
    readonly options: LivenessOptions,
    readonly events: ConnectionEvents,
    readonly logger: Logger,
    /** The client's address, for the failed-authentication limit (when the router has one). */
    readonly address?: string,
  ) {
    if (options.bytesPerSecond) this.#rate = new IngestRate(options.bytesPerSecond);
    if (options.sharedBytesPerSecond && options.senders) this.#sharedRate = new IngestRate(options.sharedBytesPerSecond, SHARED_BURST_SECONDS);
  }

  /** Starts listening and the liveness clocks. */
  start(): void {
    const { ws, options } = this;
    this.#alive();
    const pingEvery = Math.min(HUB_DEFAULTS.maxPingIntervalMs, Math.max(10, Math.floor(options.timeoutMs / 3)));
    this.#pinger = setInterval(() => ws.ping(), pingEvery);
    this.#pinger.unref();
    // Pongs keep a socket alive but do not register it: an idle socket must not hold a slot for free.
    this.#registerBy = setTimeout(() => {
      this.logger.warn({ connection: this.id }, "hub socket did not register in time");
      ws.close(HUB_CLOSE_CODES.POLICY_VIOLATION, `register within ${options.registerTimeoutMs} ms`);
      this.#drop(`it did not register within ${options.registerTimeoutMs} ms`, false);
    }, options.registerTimeoutMs);
    this.#registerBy.unref();
    ws.on("pong", () => this.#alive());
    ws.on("message", (data, isBinary) => {
      this.#alive();
      this.#receive(data, isBinary);
    });
    ws.on("close", (code, reason) => {
      // A resting socket reads its close only after the frames before it; one cut off (a reset) still hands
      // on what it had sent: a last status must not be lost to a rest.
      this.#receiveDeferred();
      const text = reason.toString();
      this.#drop(closeReason(this.#error ?? code, text), this.#error === undefined && isAgentGoodbye(code));
    });
    ws.on("error", (err: Error & { code?: string }) => {
      // ws stops reading after a protocol error and the close then reports 1006: keep the real cause.
      if (err.code === "WS_ERR_UNSUPPORTED_MESSAGE_LENGTH") this.#error = 1009;
      this.logger.warn({ err, connection: this.id }, "hub connection error");
    });
  }

  /** The socket registered: its registration deadline no longer applies. */
  registered(agent: HubAgentConnector): void {
    this.agent = agent;
    clearTimeout(this.#registerBy);
  }

  /** Whether the socket is not being read until the store has caught up (see `hold`). */
  get paused(): boolean {
    return this.#paused;
  }

  /**
   * Counts a received task update's bytes until `release`d (once: it is stored, or refused): past
   * FLOW_HIGH_BYTES the socket stops being read until the store has caught up to FLOW_LOW_BYTES. An
   * agent faster than the store then waits in its own socket (TCP pushes back on its writes) instead of in
   * the router's memory, and the event loop is not given over to one agent's flood while other tasks'
   * events wait behind it.
   */
  hold(bytes: number): void {
    this.#unstored += bytes;
    if (!this.#paused && this.#unstored > FLOW_HIGH_BYTES) {
      this.#paused = true;
      this.ws.pause();
    }
  }

  /** An update `hold` counted is stored or refused: its bytes no longer hold the socket. */
  release(bytes: number): void {
    this.#unstored -= bytes;
    if (this.#paused && this.#unstored <= FLOW_LOW_BYTES) {
      this.#paused = false;
      this.#readOn();
    }
  }

  send(frame: object): void {
    if (this.ws.readyState === this.ws.OPEN) this.ws.send(JSON.stringify(frame));
  }

  /**
   * Answers request `id` with `result` once it settles (a rejection with an HubRefusal is the error answer),
   * after every earlier answer of this connection: an agent reads its acks in the order it sent.
   */
  answer(id: RpcId, method: string, result: unknown): void {
    const settled = Promise.resolve(result);
    // Answered in order, so a refusal may wait behind earlier answers: it is handled (below), not unhandled.
    settled.catch(() => undefined);
    this.#answers = this.#answers.then(() =>
      settled.then(
        (value) => this.send(success(id, value)),
        (err: unknown) => this.send(failure(id, answerError(err, method, this.logger).toJSON())),
      ),
    );
  }

  /** Closes with the close handshake; cuts whoever does not answer within the shutdown grace. */
  close(code: number, reason: string): Promise<void> {
    return new Promise<void>((resolve) => {
      if (this.ws.readyState === this.ws.CLOSED) return resolve();
      const cut = setTimeout(() => this.ws.terminate(), HUB_DEFAULTS.closeGraceMs);
      this.ws.once("close", () => {
        clearTimeout(cut);
        resolve();
      });
      this.ws.close(code, reason);
    });
  }

  /** Hands a frame on, within the agent's rate: past it, the socket rests and later frames wait for it. */
  #receive(data: RawData, isBinary: boolean): void {
    if (this.#resting) return void this.#deferred.push([data, isBinary]);
    if (this.#rate || this.#sharedRate) this.#takeRate(frameBytes(data));
    this.events.frame(this, data, isBinary);
  }

  /** Draws a frame of `bytes` from the agent's rates, and rests the socket past one of them. */
  #takeRate(bytes: number): void {
    const now = performance.now();
    const own = this.#rate?.take(bytes, now) ?? 0;
    // The shared bucket is drawn on only while shared: an agent alone sends at whatever rate its own limit allows.
    // Only registered agents count as sending, so a socket that never registers cannot hold the others back.
    const shared = this.#sharedRate && this.agent && this.options.senders!.sent(this.id, now) ? this.#sharedRate.take(bytes, now) : 0;
    if (own <= 0 && shared <= 0) return;
    this.#rest(Math.max(own, shared));
    this.events.rested(this, shared > own ? "shared" : "own");
  }

  /** Stops reading the socket for `ms` (the agent went past its rate). */
  #rest(ms: number): void {
    this.ws.pause();
    this.#resting = setTimeout(() => {
      this.#resting = undefined;
      let next: [RawData, boolean] | undefined;
      while (!this.#resting && !this.#gone && (next = this.#deferred.shift())) this.#receive(...next);
      this.#readOn();
    }, ms);
  }

  /** Hands on every frame waiting for a rest to end, at once (the socket is closing). */
  #receiveDeferred(): void {
    clearTimeout(this.#resting);
    this.#resting = undefined;
    const frames = this.#deferred;
    this.#deferred = [];
    for (const [data, isBinary] of frames) this.events.frame(this, data, isBinary);
  }

  /** Reads the socket again, unless something else still holds it. */
  #readOn(): void {
    if (this.#paused || this.#resting || this.#gone) return;
    this.ws.resume();
    this.#alive();
  }

  #alive(): void {
    if (this.#silence) this.#silence.refresh();
    else {
      this.#silence = setTimeout(() => {
        // Not read while paused or resting, its pongs included: the silence is ours.
        if (this.#paused || this.#resting) return void this.#silence?.refresh();
        this.logger.warn({ connection: this.id, agent: this.agent?.info.id }, "hub agent timed out");
        this.ws.terminate();
        this.#drop(`it sent nothing for ${this.options.timeoutMs} ms`, false);
      }, this.options.timeoutMs);
      this.#silence.unref();
    }
  }

  #drop(why: string, agentLeft: boolean): void {
    if (this.#gone) return;
    this.#gone = true;
    clearTimeout(this.#silence);
    clearTimeout(this.#registerBy);
    clearTimeout(this.#resting);
    this.#deferred = [];
    clearInterval(this.#pinger);
    this.options.senders?.forget(this.id);
    this.events.dropped(this, why, agentLeft);
  }
}

/** A refusal as the agent is told it; anything but an HubRefusal is a bug of ours, logged, told generically. */
function answerError(err: unknown, method: string, logger: Logger): HubRefusal {
  if (!(err instanceof HubRefusal)) logger.error({ err, method }, "hub failed to handle a frame");
  return toHubRefusal(err);
}

/** A frame's size on the wire (ws hands over a Buffer, or fragments, by default). */
export function frameBytes(data: RawData): number {
  if (Array.isArray(data)) return data.reduce((n, b) => n + b.length, 0);
  return data.byteLength;
}

/** Codes of a close the agent asked for: it is leaving, not losing its link. */
function isAgentGoodbye(code: number): boolean {
  return code === 1000 || code === 1001 || code === 1005;
}

/** Why a connection closed, in words (1009: a frame over the hub's size limit). */
function closeReason(code: number, reason: string): string {
  if (code === 1009) return `it sent a frame larger than ${HUB_DEFAULTS.maxPayload} bytes`;
  if (reason) return `it closed the connection: ${reason}`;
  return isAgentGoodbye(code) ? "it closed the connection" : `the connection was lost (code ${code})`;
}
