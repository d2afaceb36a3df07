/**
 * Express to the SDK's web-standard transport and back: a Request with the client's headers (the body is
 * handed over parsed), and a Response streamed out as it comes, stopping when the client goes away.
 */
import type { Request as ExpressRequest, Response as ExpressResponse } from "express";
import { drained } from "../../net/drained.js";
import type { CallStream } from "./call-stream.js";

/** The URL the transport sees (it only reports it back to handlers in `requestInfo`). */
const BASE = "http://router.invalid";

/** A web Request for the transport: the client's method, path and headers, no body (passed as `parsedBody`). */
export function webRequest(req: ExpressRequest, overrides: Record<string, string | undefined> = {}): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (typeof value === "string") headers.set(name, value);
    else if (Array.isArray(value)) headers.set(name, value.join(", "));
  }
  for (const [name, value] of Object.entries(overrides)) {
    if (value === undefined) headers.delete(name);
    else headers.set(name, value);
  }
  return new Request(`${BASE}${req.originalUrl}`, { method: req.method, headers });
}

/** A call's own stream sharing the response (call-stream.ts), and whether the transport queued a priming event. */
export interface SharedStream {
  call: CallStream;
  /** The transport queued a priming event before the call's handler ran: it is written before the call's frames. */
  primed: boolean;
}

/**
 * Writes the transport's Response to the client; resolves when it is done or the client went away. With
 * `shared`, a call's frames go to the same response once the transport's priming event is written.
 */
export async function sendWebResponse(web: Response, res: ExpressResponse, shared?: SharedStream): Promise<void> {
  res.status(web.status);
  for (const [name, value] of web.headers) res.setHeader(name, value);
  if (!web.body || !web.headers.get("content-type")?.startsWith("text/event-stream")) shared?.call.close();
  if (!web.body) return void res.end();
  res.flushHeaders();
  const reader = web.body.getReader();
  let gone = false;
  const onClose = (): void => {
    gone = true;
    shared?.call.close();
    reader.cancel().catch(() => undefined);
  };
  res.on("close", onClose);
  let waiting = shared?.primed === true;
  try {
    if (shared && !waiting) shared.call.attach(res);
    for (;;) {
      const { done, value } = await reader.read();
      if (done || gone) break;
      const ok = res.write(value);
      if (waiting && shared) {
        waiting = false;
        shared.call.attach(res);
      }
      if (!ok || res.writableNeedDrain) await drained(res);
    }
  } catch {
    // The stream was cancelled (the client went away) or failed: either way this response is over.
  } finally {
    shared?.call.close();
    res.off("close", onClose);
    if (!gone) res.end();
  }
}

/** Reads a transport Response to its end, ignoring it (a revived session's synthetic initialize). */
export async function discard(web: Response): Promise<void> {
  const reader = web.body?.getReader();
  if (!reader) return;
  for (;;) if ((await reader.read()).done) return;
}
