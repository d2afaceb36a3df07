/**
 * The v0.1 agent card: one JSON-RPC endpoint in `url`, with no `protocolVersion` and no transport members
 * (v0.3 added those). The router's cards write `url` once for v0.1 and v0.3 clients alike (v03/card.ts).
 */

/** The protocol version a card's `url` speaks when the card names none and has no v0.3 members. */
export const V01_CARD_VERSION = "0.1";

/** Whether a card's `url` (without a protocolVersion) is a v0.1 endpoint: no v0.3 transport members. */
export function isV01Card(card: Record<string, unknown>): boolean {
  return !("preferredTransport" in card) && !("additionalInterfaces" in card);
}
