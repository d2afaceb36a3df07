/**
 * The protocol bindings the router can speak to an upstream agent: JSON-RPC (every dialect) and the
 * HTTP+JSON (REST) binding of v1.0. A card's other bindings (gRPC, custom ones) are passed over.
 */
export type UpstreamBinding = "JSONRPC" | "HTTP+JSON";

/** An interface an agent card offers: where, in which binding, speaking which protocol version (as written). */
export interface CardEndpoint {
  url: string;
  protocolVersion: string;
  binding: UpstreamBinding;
}

/**
 * The binding a card's `protocolBinding` (v1.0) or `transport` (v0.3) member names, when the router speaks
 * it; absent means JSON-RPC, A2A's default. Case is ignored: cards in the wild write "jsonrpc" too.
 */
export function bindingOf(value: unknown): UpstreamBinding | undefined {
  if (value === undefined) return "JSONRPC";
  const name = String(value).toUpperCase();
  return name === "JSONRPC" || name === "HTTP+JSON" ? name : undefined;
}
