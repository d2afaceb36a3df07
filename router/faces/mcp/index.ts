/** The MCP face: `/mcp`, every agent as a tool for MCP hosts (CONTRACT 16, docs/mcp.md). */
export { mountMcpFace, MCP_PATH, type McpFace, type McpFaceDeps } from "./routes.js";
export { REASON_ERRORS as MCP_REASON_ERRORS } from "./errors.js";
export { toolName } from "./tools.js";
