/** A JSON-RPC endpoint an agent card offers, with the protocol version it speaks as the card writes it. */
export interface CardEndpoint {
  url: string;
  protocolVersion: string;
}

/** Whether a card's binding or transport member names JSON-RPC (absent means JSON-RPC, A2A's default). */
export function isJsonRpcBinding(value: unknown): boolean {
  return value === undefined || String(value).toUpperCase() === "JSONRPC";
}
