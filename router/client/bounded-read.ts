/**
 * Reading a response body with a bound: without one, one answer could hold the reader's memory without
 * limit (a body of gigabytes). The limits themselves are the caller's (router/upstream/limits.ts for the
 * router's upstream agents, the CLI's own).
 */

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
