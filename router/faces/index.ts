/**
 * The chat faces (CONTRACT 10): thin adapters over the task service and the reply reader, each mounted
 * with one call. OpenAI-compatible `/v1/*` (Chat Completions, and the Responses API at `/v1/responses`), the AI
 * SDK UI stream at `/api/chat`, the chat page at `/chat`, and the MCP face at `/mcp` (CONTRACT 16).
 */
export { mountOpenAiFace, type OpenAiFaceDeps } from "./openai/index.js";
export { mountResponsesFace, type ResponsesFaceDeps } from "./responses/index.js";
export { mountAiSdkFace, type AiSdkFaceDeps } from "./ai-sdk/index.js";
export { mountChatPage } from "./chat-page/index.js";
export { mountMcpFace, type McpFaceDeps } from "./mcp/index.js";
