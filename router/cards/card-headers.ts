import { createHash } from "node:crypto";

/** How long a client may use a card without asking again (spec 8.6.1 SHOULD): agents come and go, so short. */
export const CARD_MAX_AGE_SECONDS = 60;

/** Cards remembered for Last-Modified; past this the oldest are forgotten (they then date from their next serving). */
const REMEMBERED = 1024;

/**
 * The caching headers of a served card (spec 8.6.1): `ETag` from the card's bytes, `Cache-Control` with a
 * max-age, `Last-Modified` when these bytes were first served (a card changes when an agent registers or its
 * card is discovered again, and a hash change is exactly that). Cards also need `Vary: A2A-Version`: the version a
 * client asks for picks the card's shape (agent-card.ts): the HTTP layer adds it to what `Vary` already holds.
 */
export class CardHeaders {
  readonly #firstServed = new Map<string, Date>();
  readonly #now: () => Date;

  constructor(now: () => Date = () => new Date()) {
    this.#now = now;
  }

  /** The headers for a card whose JSON text is `body`. */
  of(body: string): Record<string, string> {
    const hash = createHash("sha256").update(body).digest("base64url").slice(0, 27);
    let since = this.#firstServed.get(hash);
    if (!since) {
      if (this.#firstServed.size >= REMEMBERED) this.#firstServed.delete(this.#firstServed.keys().next().value!);
      // HTTP dates have whole seconds: a client's If-Modified-Since must compare equal to what it was sent.
      since = new Date(Math.floor(this.#now().getTime() / 1000) * 1000);
      this.#firstServed.set(hash, since);
    }
    return {
      ETag: `W/"${hash}"`,
      "Cache-Control": `public, max-age=${CARD_MAX_AGE_SECONDS}`,
      "Last-Modified": since.toUTCString(),
    };
  }
}
