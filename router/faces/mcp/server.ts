/**
 * The MCP server of one session, on the SDK's low-level `Server` (the tools are the router's agents, listed
 * and described at each request, so they are not registered one by one): tools/list, tools/call and the task
 * methods, over the SDK's Streamable HTTP transport with the session's event store.
 */
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { VERSION } from "../../version.js";
import { runToolCall } from "./call.js";
import type { SessionContext } from "./context.js";
import { registerTaskHandlers } from "./tasks.js";
import { toolOf } from "./tools.js";

/** What the router tells a host about itself at initialize. */
const INSTRUCTIONS =
  "Each tool is an A2A agent behind this router. Send one message per call; the result's structuredContent names the taskId and contextId. " +
  "Pass contextId to go on with a conversation; when state is input-required, answer the question with another call that passes its taskId.";

/** The capabilities the router declares (CONTRACT 16). */
export const SERVER_CAPABILITIES = {
  tools: { listChanged: true },
  tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } },
} as const;

export interface SessionServer {
  server: Server;
  transport: WebStandardStreamableHTTPServerTransport;
}

/** A connected server and transport for the session `ctx` (its id is fixed: new, or one being revived). */
export async function createSessionServer(ctx: SessionContext, keepAliveMs: number): Promise<SessionServer> {
  const server = new Server({ name: "a2a-router", version: VERSION }, { capabilities: SERVER_CAPABILITIES, instructions: INSTRUCTIONS });
  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: ctx.service
      .listAgents(ctx.scope.caller)
      .filter((a) => a.isOnline())
      .map(toolOf),
  }));
  server.setRequestHandler(CallToolRequestSchema, (request, extra) => runToolCall(ctx, request, extra));
  registerTaskHandlers(server, ctx);
  server.onerror = (err) => ctx.logger.debug({ err: err.message, session: ctx.id }, "mcp: protocol error");
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: () => ctx.id,
    eventStore: ctx.store,
    keepAliveMs,
  });
  await server.connect(transport);
  return { server, transport };
}
