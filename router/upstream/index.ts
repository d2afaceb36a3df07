/**
 * Upstream HTTP agents: card discovery, liveness, and the failures of the shared HTTP/SSE transport
 * (router/client) said in the agent's terms. Each dialect's agent side and codec (what to send, how to read
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
