/**
 * Upstream HTTP agents: the HTTP/SSE transport (JSON-RPC and v1.0 HTTP+JSON), card discovery and liveness. Each dialect's agent side
 * (what to send, how to read the answers) lives in its folder under router/dialects/.
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
export { upstreamProtocol, type UpstreamCall, type UpstreamProtocol } from "../dialects/index.js";
