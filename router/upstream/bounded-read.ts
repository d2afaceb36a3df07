/**
 * Bounds on what an upstream agent's server may send the router in one piece: a JSON body, one SSE event, a
 * card. Without them one answer could hold the router's memory without limit (a body of gigabytes, a stream
 * that never ends its event); the hub bounds a WebSocket agent's frames the same way.
 */
import { HUB_DEFAULTS } from "../core/hub-defaults.js";

/**
 * The most one answer may take: a JSON body in bytes, one SSE event in characters (eventsource-parser's
 * `maxBufferSize`, which counts what it holds of an event not yet ended). The hub's frame limit: an agent's
 * one message is bounded alike whichever way it comes.
 */
export const MAX_ANSWER_BYTES = HUB_DEFAULTS.maxPayload;
/** The most an agent card may take; real cards are a few KB. */
export const MAX_CARD_BYTES = 1024 * 1024;

/** Past a bound: what was read so far is dropped and the body cancelled. */
export class AnswerTooLarge extends Error {
  override name = "AnswerTooLarge";
}

/**
 * A response body as text, once whole, if it takes at most `maxBytes`; else (a Content-Length that says so,
 * or bytes past the bound as they arrive) the body is cancelled and AnswerTooLarge thrown.
 */
export async function boundedText(res: Response, maxBytes: number): Promise<string> {
  if (!res.body) return "";
  const tooLarge = () => new AnswerTooLarge(`more than ${maxBytes} bytes`);
  if (Number(res.headers.get("content-length")) > maxBytes) {
    await res.body.cancel().catch(() => undefined);
    throw tooLarge();
  }
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) {
      await reader.cancel().catch(() => undefined);
      throw tooLarge();
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks, total).toString("utf8");
}
