import { bindingOf, type CardEndpoint } from "../shared/card-endpoint.js";
import { isRecord } from "../shared/translate-helpers.js";

/** The protocol version a v1.0 interface entry speaks when it names none. */
const DEFAULT_VERSION = "1.0";

/**
 * The v1.0 members of an agent card: `supportedInterfaces`, one JSON-RPC entry per protocol version
 * served at `url` (a v1.0 card lists every generation it speaks, each with its protocolVersion).
 */
export function v10CardMembers(url: string, protocolVersions: readonly string[]): Record<string, unknown> {
  return {
    supportedInterfaces: protocolVersions.map((protocolVersion) => ({ url, protocolBinding: "JSONRPC", protocolVersion })),
  };
}

/** The JSON-RPC, HTTP+JSON and gRPC endpoints a card's `supportedInterfaces` offer, each with its own protocolVersion and tenant. */
export function v10CardEndpoints(card: Record<string, unknown>): CardEndpoint[] {
  if (!Array.isArray(card.supportedInterfaces)) return [];
  const out: CardEndpoint[] = [];
  for (const i of card.supportedInterfaces.filter(isRecord)) {
    const binding = bindingOf(i.protocolBinding);
    if (!binding || typeof i.url !== "string") continue;
    const version = typeof i.protocolVersion === "string" && i.protocolVersion !== "" ? i.protocolVersion : DEFAULT_VERSION;
    const tenant = typeof i.tenant === "string" && i.tenant !== "" ? { tenant: i.tenant } : {};
    out.push({ url: i.url, protocolVersion: version, binding, ...tenant });
  }
  return out;
}

/** Whether a card is written for v1.0 (lists supportedInterfaces). */
export function isV10Card(card: Record<string, unknown>): boolean {
  return Array.isArray(card.supportedInterfaces);
}
