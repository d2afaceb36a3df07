/**
 * A `tools/call`'s own writer onto its POST's SSE response, beside the SDK transport's stream on the same
 * response. The call's progress notifications are written here, as frames of the Streamable HTTP wire format
 * the transport itself writes, rather than one `sendNotification` each: the transport's `send` checks every
 * outgoing message against two zod schemas (is it a result? an error?), both failing on a notification, and
 * hands each to a ReadableStream read chunk by chunk; that was three quarters of the router's CPU an event.
 * Every other message of the call (the priming event, elicitation requests, the result, keep-alives) still
 * goes through the transport. Order holds: the priming event is queued before the call's handler runs, and is
 * written before this stream lets any frame through (see `sendWebResponse`); the call sends its result, and
 * an elicitation request, only after its progress frames were written; the host answers an elicitation only
 * after reading it. Event ids are the ones the log derives (event-ids.ts), so resumption is unchanged.
 */
import type { ServerResponse } from "node:http";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { drained } from "../../net/drained.js";

/** Frames are joined into writes of about this many characters (one writev per batch of events). */
const WRITE_CHARS = 32 * 1024;

/** One SSE event as the SDK's Streamable HTTP transport writes a message (`event: message`, its id, its JSON). */
export function messageFrame(id: string, message: JSONRPCMessage | string): string {
  return `event: message\nid: ${id}\ndata: ${typeof message === "string" ? message : JSON.stringify(message)}\n\n`;
}

/** The frame of a progress notification (the same JSON `sendNotification` would send). */
export function progressFrame(id: string, progressToken: string | number, progress: number, message: string): string {
  return messageFrame(id, `{"method":"notifications/progress","params":${JSON.stringify({ progressToken, progress, message })},"jsonrpc":"2.0"}`);
}

export class CallStream {
  #res: ServerResponse | undefined;
  /** Frames written before the response was attached (the transport's first frames go first). */
  #held: string[] = [];
  #closed = false;

  /** Whether frames still reach the host (false once the response ended or the host went away). */
  get open(): boolean {
    return !this.#closed;
  }

  /** Writes frames in order, joined into few writes; false means the socket is full: await `drained()`. */
  write(frames: readonly string[]): boolean {
    if (this.#closed || frames.length === 0) return true;
    const res = this.#res;
    if (!res) {
      this.#held.push(...frames);
      return true;
    }
    return writeJoined(res, frames);
  }

  /** Resolves once the socket takes more, or the stream is over. */
  async drained(): Promise<void> {
    if (!this.#closed && this.#res) await drained(this.#res);
  }

  /** From now on frames go to `res` (the frames held so far first). */
  attach(res: ServerResponse): void {
    if (this.#closed) return;
    this.#res = res;
    const held = this.#held;
    this.#held = [];
    writeJoined(res, held);
  }

  /** The response is over: frames written from now on are dropped (as the transport drops them). */
  close(): void {
    this.#closed = true;
    this.#res = undefined;
    this.#held = [];
  }
}

function writeJoined(res: ServerResponse, frames: readonly string[]): boolean {
  if (frames.length === 0) return true;
  if (frames.length === 1) return res.write(frames[0]!);
  let ok = true;
  let chunk = "";
  res.cork();
  for (const frame of frames) {
    chunk += frame;
    if (chunk.length >= WRITE_CHARS) {
      ok = res.write(chunk) && ok;
      chunk = "";
    }
  }
  if (chunk !== "") ok = res.write(chunk) && ok;
  res.uncork();
  return ok;
}
