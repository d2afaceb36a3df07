/** Upstream HTTP agents: card discovery, the shared HTTP/SSE transport, one client protocol per dialect. */
export { HttpAgent, type HttpAgentConfig } from "./http-agent.js";
export { discoverAgent, cardUrls, dialectOfCard, parseProtocol, type DiscoveredAgent } from "./card-discovery.js";
export type { UpstreamCall, UpstreamProtocol } from "./protocol.js";
export { upstreamProtocol } from "./protocols/index.js";
