import { bindingOf, type CardEndpoint } from "../shared/card-endpoint.js";
import { isRecord } from "../shared/translate-helpers.js";
import { isV01Card, V01_CARD_VERSION } from "../v01/card.js";

/** The protocol version the router's cards declare for their v0.3 members. */
export const V03_CARD_VERSION = "0.3.0";

/**
 * The v0.3 members of an agent card (read by v0.1 clients too, through `url`): `url` speaks
 * `preferredTransport`, `additionalInterfaces` list other transports of the same protocolVersion.
 */
export function v03CardMembers(url: string, extendedCard: boolean): Record<string, unknown> {
  return {
    url,
    protocolVersion: V03_CARD_VERSION,
    preferredTransport: "JSONRPC",
    additionalInterfaces: [{ url, transport: "JSONRPC" }],
    supportsAuthenticatedExtendedCard: extendedCard,
  };
}

/**
 * The JSON-RPC, HTTP+JSON and gRPC endpoints a card's v0.3 (or v0.1) members offer: `url` in its
 * preferredTransport (JSON-RPC when absent), then additionalInterfaces; all in the card's protocolVersion
 * (a card naming none is v0.3 when it has v0.3 members, else v0.1). Card discovery keeps those whose
 * version and binding the router speaks (v0.3's REST and gRPC are not).
 */
export function v03CardEndpoints(card: Record<string, unknown>): CardEndpoint[] {
  const named = typeof card.protocolVersion === "string" && card.protocolVersion !== "" ? card.protocolVersion : undefined;
  const protocolVersion = named ?? (isV01Card(card) ? V01_CARD_VERSION : V03_CARD_VERSION);
  const out: CardEndpoint[] = [];
  const preferred = bindingOf(card.preferredTransport);
  if (preferred && typeof card.url === "string") out.push({ url: card.url, protocolVersion, binding: preferred });
  if (Array.isArray(card.additionalInterfaces)) {
    for (const i of card.additionalInterfaces.filter(isRecord)) {
      const binding = bindingOf(i.transport);
      if (binding && typeof i.url === "string") out.push({ url: i.url, protocolVersion, binding });
    }
  }
  return out;
}
