import type { ServerResponse } from "node:http";
import { PING_FRAME, SSE_HEADERS } from "./format.js";

/**
 * Writes SSE frames to one HTTP response: sends the headers at once, keeps a heartbeat on idle streams,
 * and exposes socket backpressure so the reader of the task log can wait instead of buffering.
 */
export class SseWriter {
  #res: ServerResponse;
  #heartbeatMs: number;
  #timer: NodeJS.Timeout | undefined;
  #closed = false;
  #closeWaiters: Array<() => void> = [];

  constructor(res: ServerResponse, heartbeatMs: number) {
    this.#res = res;
    this.#heartbeatMs = heartbeatMs;
    res.on("close", () => this.#markClosed());
  }

  get closed(): boolean {
    return this.#closed;
  }

  open(): void {
    this.#res.writeHead(200, SSE_HEADERS);
    this.#res.flushHeaders();
    this.#armHeartbeat();
  }

  /**
   * Writes preformatted frames (a string, or pieces sent back to back in one writev); false means the
   * socket buffer is full: await `drained()`.
   */
  write(frame: string | ReadonlyArray<string | Uint8Array>): boolean {
    if (this.#closed) return false;
    this.#armHeartbeat();
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
      this.#closeWaiters.push(done);
    });
  }

  end(): void {
    if (this.#closed) return;
    this.#res.end();
    this.#markClosed();
  }

  #armHeartbeat(): void {
    if (this.#timer) this.#timer.refresh();
    else {
      this.#timer = setTimeout(() => this.#ping(), this.#heartbeatMs);
      this.#timer.unref();
    }
  }

  #ping(): void {
    if (this.#closed) return;
    this.#res.write(PING_FRAME);
    this.#timer = setTimeout(() => this.#ping(), this.#heartbeatMs);
    this.#timer.unref();
  }

  #markClosed(): void {
    if (this.#closed) return;
    this.#closed = true;
    clearTimeout(this.#timer);
    for (const w of this.#closeWaiters.splice(0)) w();
  }
}
