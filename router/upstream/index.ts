/**
 * Upstream HTTP agents: the HTTP/SSE transport, card discovery and liveness. Each dialect's agent side
 * (what to send, how to read the answers) lives in its folder under router/dialects/.
 */
export { HttpAgent, type HttpAgentConfig } from "./http-agent.js";
export { discoverAgent, cardUrls, dialectOfCard, parseProtocol, type DiscoveredAgent } from "./card-discovery.js";
export { upstreamProtocol, type UpstreamCall, type UpstreamProtocol } from "../dialects/index.js";
