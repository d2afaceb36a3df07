export { AgentHub, type HubOptions } from "./hub.js";
export { HubAgent } from "./hub-agent.js";
export { HUB_METHODS, HUB_PATHS, HUB_DEFAULTS } from "./protocol.js";
