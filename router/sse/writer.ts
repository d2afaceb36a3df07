import type { ServerResponse } from "node:http";
import { PING_FRAME, SSE_HEADERS } from "./format.js";
import { heartbeatEvery, type Beating, type Heartbeat } from "./heartbeat.js";

/**
 * Writes SSE frames to one HTTP response: sends the headers at once, keeps a heartbeat on idle streams,
 * and exposes socket backpressure so the reader of the task log can wait instead of buffering.
 */
export class SseWriter implements Beating {
  #res: ServerResponse;
  #heartbeat: Heartbeat;
  #wroteAt = 0;
  #closed = false;
  #onClose: (() => void) | undefined;
  /** Made by the first `drained()` that waits: most streams never wait. */
  #closeWaiters: Array<() => void> | undefined;

  /**
   * `onClose` runs once when the stream closes: the client went away (also before `open`), or `end`.
   * The heartbeat is shared by every stream of the same interval (one timer, not one per stream).
   */
  constructor(res: ServerResponse, heartbeatMs: number, onClose?: () => void) {
    this.#res = res;
    this.#heartbeat = heartbeatEvery(heartbeatMs);
    this.#onClose = onClose;
    // A client that left while the stream was being set up has no 'close' left to emit.
    if (res.closed || res.destroyed) this.#markClosed();
    else res.on("close", () => this.#markClosed());
  }

  get closed(): boolean {
    return this.#closed;
  }

  /** The heartbeat tick of the last write (see Beating). */
  get wroteAt(): number {
    return this.#wroteAt;
  }

  open(): void {
    if (this.#closed) return;
    this.#res.writeHead(200, SSE_HEADERS);
    this.#res.flushHeaders();
    this.#wroteAt = this.#heartbeat.tick;
    this.#heartbeat.add(this);
  }

  /**
   * Writes preformatted frames (a string, or pieces sent back to back in one writev); false means the
   * socket buffer is full: await `drained()`.
   */
  write(frame: string | ReadonlyArray<string | Uint8Array>): boolean {
    if (this.#closed) return false;
    this.#wroteAt = this.#heartbeat.tick;
    if (typeof frame === "string") return this.#res.write(frame);
    this.#res.cork();
    let ok = true;
    for (const piece of frame) ok = this.#res.write(piece) && ok;
    this.#res.uncork();
    return ok;
  }

  /** Resolves once the socket can take more, or the stream closed. */
  drained(): Promise<void> {
    if (this.#closed || !this.#res.writableNeedDrain) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        this.#res.off("drain", done);
        resolve();
      };
      this.#res.on("drain", done);
      (this.#closeWaiters ??= []).push(done);
    });
  }

  end(): void {
    if (this.#closed) return;
    this.#res.end();
    this.#markClosed();
  }

  /** The shared heartbeat's call on an idle stream. */
  ping(tick: number): void {
    if (this.#closed) return;
    this.#wroteAt = tick;
    this.#res.write(PING_FRAME);
  }

  #markClosed(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#heartbeat.delete(this);
    for (const w of this.#closeWaiters?.splice(0) ?? []) w();
    const onClose = this.#onClose;
    this.#onClose = undefined;
    onClose?.();
  }
}
