/**
 * The SSE wire format, and nothing else: pure functions so every framing rule is testable in memory.
 * An event is `id: <seq>` (optional) then one `data:` line, then a blank line. Payloads are JSON, which
 * never contains a raw newline, so one data line always suffices.
 */

/** Headers every stream answers with, before its first event, so a client knows its stream is open. */
export const SSE_HEADERS: Readonly<Record<string, string>> = {
  "Content-Type": "text/event-stream; charset=utf-8",
  "Cache-Control": "no-cache",
  "X-Accel-Buffering": "no",
  Connection: "keep-alive",
};

/** The heartbeat comment sent on idle streams. */
export const PING_FRAME = ": ping\n\n";

/** Formats one event. `id` is omitted for synthetic snapshots, which are not in the log. */
export function formatEvent(data: string, id?: number | string): string {
  if (id === undefined) return `data: ${data}\n\n`;
  const idText = String(id);
  if (/[\r\n]/.test(idText)) throw new Error("SSE event id must not contain CR or LF");
  if (/[\r\n]/.test(data)) throw new Error("SSE data must be a single line");
  return `id: ${idText}\ndata: ${data}\n\n`;
}

/**
 * Formats a logged event whose data is JSON text made by JSON.stringify, which never contains a raw CR
 * or LF (they are escaped in strings, and it adds no whitespace): no scan of the payload, which for a
 * stream of large events was a pass over every byte it sends.
 */
export function formatJsonEvent(json: string, seq: number): string {
  return `id: ${seq}\ndata: ${json}\n\n`;
}

/**
 * Formats one event whose data comes in pieces (a large payload shared between streams as a Buffer): the
 * pieces of one single-line JSON text, framed without copying them.
 */
export function formatEventPieces(pieces: ReadonlyArray<string | Uint8Array>, id?: number): Array<string | Uint8Array> {
  return [id === undefined ? "data: " : `id: ${id}\ndata: `, ...pieces, "\n\n"];
}

/** Formats a comment line (ignored by clients, keeps proxies from timing the stream out). */
export function formatComment(text: string): string {
  if (/[\r\n]/.test(text)) throw new Error("SSE comment must be a single line");
  return `: ${text}\n\n`;
}

/** Parses a Last-Event-ID header into a seq; undefined when absent, an Error message when malformed. */
export function parseLastEventId(header: string | undefined): number | undefined | Error {
  if (header === undefined || header.trim() === "") return undefined;
  // An event id is the decimal seq the stream sent: "1e3", "3.0", "0x10" or "+2" are not ids it sent.
  const n = /^\d+$/.test(header.trim()) ? Number(header.trim()) : NaN;
  if (!Number.isSafeInteger(n) || n < 0) return new Error(`Last-Event-ID must be a non-negative integer: got "${header}"`);
  return n;
}
