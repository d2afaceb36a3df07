export { createEchoAgent } from "./echo-agent.js";
