import { unescapeXml } from "./xml.js";

const OPEN = "<text>";
const CLOSE = "</text>";

/**
 * Pulls the content of the reply's `<text>` element out of the raw model stream as it arrives, so clients
 * see the reply's words and never the XML around them. Pure: `feed` returns the decoded text that became
 * safe to show (possibly ""). A tail that could still turn out to be `</text>` or an entity is held back
 * until the next chunk decides it.
 */
export class ReplyTextExtractor {
  #raw = "";
  /** Index in #raw where the text content starts (-1 until `<text>` is seen). */
  #start = -1;
  /** How much of the content (raw, undecoded) has been emitted. */
  #emitted = 0;
  #done = false;

  /** Feeds one raw chunk; returns the newly visible text. */
  feed(chunk: string): string {
    if (this.#done) return "";
    this.#raw += chunk;
    if (this.#start < 0) {
      const at = this.#raw.indexOf(OPEN);
      if (at < 0) return "";
      this.#start = at + OPEN.length;
    }
    const content = this.#raw.slice(this.#start);
    const close = content.indexOf(CLOSE);
    let safeEnd: number;
    if (close >= 0) {
      this.#done = true;
      safeEnd = close;
    } else {
      safeEnd = content.length - heldBackTail(content);
    }
    if (safeEnd <= this.#emitted) return "";
    const piece = content.slice(this.#emitted, safeEnd);
    this.#emitted = safeEnd;
    return unescapeXml(piece);
  }

  /** Whether `</text>` has been seen. */
  get done(): boolean {
    return this.#done;
  }
}

/** Length of a suffix that may be the start of `</text>` or of an entity not yet terminated by `;`. */
function heldBackTail(content: string): number {
  const lt = content.lastIndexOf("<");
  if (lt >= 0 && CLOSE.startsWith(content.slice(lt))) return content.length - lt;
  const amp = content.lastIndexOf("&");
  // Entities are short; a lone "&" followed by many characters is just an ampersand.
  if (amp >= 0 && !content.includes(";", amp) && content.length - amp <= 10) return content.length - amp;
  return 0;
}
