/**
 * Upstream agents: card discovery, liveness, and the failures of their carriages said in the agent's terms
 * (the shared HTTP/SSE transport of router/client; gRPC for v1.0 agents that offer it). Each dialect's agent side and codec (what to send, how to read
 * the answers) lives in its folder under router/dialects/.
 */
export { HttpAgent } from "./http-agent.js";
export type { HttpAgentConfig } from "../config/config.js";
export {
  discoverAgent,
  cardUrls,
  dialectOfCard,
  interfaceOfCard,
  parseProtocol,
  parseProtocolChoice,
  type DiscoveredAgent,
  type UpstreamInterface,
} from "./card-discovery.js";
export { upstreamProtocol, type UpstreamProtocol } from "../dialects/index.js";
