/** The WebSocket agent hub (CONTRACT section 5): what the router mounts, and the hub's wire vocabulary. */
export { AgentHub, type HubAuthLimit, type HubOptions } from "./hub.js";
export { HubAgentConnector } from "./hub-agent-connector.js";
export { HUB_CLOSE_CODES, HUB_DEFAULTS, HUB_METHODS, HUB_PATHS } from "./protocol.js";
export { HUB_ERROR_CODES, HUB_PROTOCOLS, HubRefusal, type HubProtocol } from "./wire/index.js";
