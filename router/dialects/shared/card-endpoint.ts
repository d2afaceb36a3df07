/**
 * The protocol bindings the router can speak to an upstream agent: JSON-RPC (every dialect), and the
 * HTTP+JSON (REST) and gRPC bindings of v1.0. A card's other bindings (custom ones) are passed over.
 */
export type UpstreamBinding = "JSONRPC" | "HTTP+JSON" | "GRPC";

/** An interface an agent card offers: where, in which binding, speaking which protocol version (as written). */
export interface CardEndpoint {
  /** A URL; for gRPC the `host:port` a gRPC client dials. */
  url: string;
  protocolVersion: string;
  binding: UpstreamBinding;
  /** v1.0's `tenant` of the interface, when it names one: sent in every request's `tenant` field. */
  tenant?: string;
}

/**
 * The binding a card's `protocolBinding` (v1.0) or `transport` (v0.3) member names, when the router speaks
 * it; absent means JSON-RPC, A2A's default. Case is ignored: cards in the wild write "jsonrpc" too.
 */
export function bindingOf(value: unknown): UpstreamBinding | undefined {
  if (value === undefined) return "JSONRPC";
  const name = String(value).toUpperCase();
  return name === "JSONRPC" || name === "HTTP+JSON" || name === "GRPC" ? name : undefined;
}
