/** The registry of every agent the router can route to. */
export { AgentRegistry } from "./registry.js";
