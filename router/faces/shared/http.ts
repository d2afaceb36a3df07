/**
 * What every chat face needs from an express request, and nothing face-specific: the caller as the auth
 * middleware left it, the JSON body, and the SSE stream a face writes its own chunks to.
 */
import type { Request, Response } from "express";
import type { Caller, Scope } from "../../service/scope.js";
import { formatEvent } from "../../sse/format.js";
import { COALESCE_CHARS } from "../../sse/relay.js";
import { SseWriter } from "../../sse/writer.js";

/** The service scope of a request: the caller the auth middleware set (`res.locals.caller`), if any. */
export function callerScope(res: Response): Scope {
  const caller = res.locals.caller as Caller | undefined;
  return caller ? { caller } : {};
}

/** The parsed JSON body (the faces mount a text body parser, so a bad body is theirs to report). */
export function jsonBody(req: Request): { ok: true; value: unknown } | { ok: false; message: string } {
  const text = typeof req.body === "string" ? req.body : "";
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false, message: "the request body is not JSON" };
  }
}

/** An AbortSignal that fires when the client goes away: it ends reading the turn, never the turn itself. */
export function clientGone(res: Response): AbortSignal {
  const aborter = new AbortController();
  res.on("close", () => aborter.abort());
  return aborter.signal;
}

/**
 * An open SSE response that writes `data: <json>` frames, with an `event:` name where the protocol has one
 * (no ids: chat protocols do not resume by SSE id).
 */
export class DataStream {
  readonly #writer: SseWriter;

  constructor(res: Response, heartbeatMs: number, headers: Record<string, string> = {}) {
    for (const [k, v] of Object.entries(headers)) res.setHeader(k, v);
    this.#writer = new SseWriter(res, heartbeatMs);
    this.#writer.open();
  }

  get closed(): boolean {
    return this.#writer.closed;
  }

  /** Writes one frame, waiting while the socket is full (a slow reader holds only its own stream). */
  async send(data: unknown, event?: string): Promise<void> {
    const frame = (event === undefined ? "" : `event: ${event}\n`) + formatEvent(typeof data === "string" ? data : JSON.stringify(data));
    if (!this.#writer.write(frame)) await this.#writer.drained();
  }

  /**
   * Writes frames in one write (one syscall), waiting while the socket is full; `eventOf` names each frame's
   * `event:` where the protocol has one. Frames are joined into chunks of about COALESCE_CHARS, as the relay
   * joins them: one string of a whole batch (a Responses progress batch is hundreds of KB) cost more to
   * measure and copy for the socket than its JSON cost to make.
   */
  async sendAll<T>(items: readonly T[], eventOf?: (item: T) => string): Promise<void> {
    if (items.length === 0) return;
    const chunks: string[] = [];
    let frames = "";
    for (const data of items) {
      if (eventOf) frames += `event: ${eventOf(data)}\n`;
      frames += formatEvent(typeof data === "string" ? data : JSON.stringify(data));
      if (frames.length >= COALESCE_CHARS) {
        chunks.push(frames);
        frames = "";
      }
    }
    if (frames !== "") chunks.push(frames);
    if (!this.#writer.write(chunks.length === 1 ? chunks[0]! : chunks)) await this.#writer.drained();
  }

  end(): void {
    this.#writer.end();
  }
}
