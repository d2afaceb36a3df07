/** What the MCP suites share: the official SDK client connected to a router's `/mcp`. */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { type CallToolResult, CallToolResultSchema, ElicitRequestSchema, type ElicitResult, type ElicitRequest } from "@modelcontextprotocol/sdk/types.js";

export interface McpPeer {
  client: Client;
  transport: StreamableHTTPClientTransport;
  close(): Promise<void>;
}

export interface PeerOptions {
  apiKey?: string;
  /** Declares the elicitation capability and answers with this. */
  elicit?: (request: ElicitRequest) => ElicitResult | Promise<ElicitResult>;
  /** Reuse a session (a host that comes back): no initialize is sent. */
  sessionId?: string;
  headers?: Record<string, string>;
  /** Client-side reconnection (default: the SDK's). */
  reconnect?: { initialReconnectionDelay: number; maxReconnectionDelay: number; reconnectionDelayGrowFactor: number; maxRetries: number };
}

/** An SDK Client connected to `${url}/mcp`. */
export async function connectMcp(url: string, options: PeerOptions = {}): Promise<McpPeer> {
  const headers = { ...(options.apiKey !== undefined && { authorization: `Bearer ${options.apiKey}` }), ...options.headers };
  const transport = new StreamableHTTPClientTransport(new URL(`${url}/mcp`), {
    requestInit: { headers },
    ...(options.sessionId !== undefined && { sessionId: options.sessionId }),
    ...(options.reconnect !== undefined && { reconnectionOptions: options.reconnect }),
  });
  const client = new Client({ name: "mcp-test", version: "1.0.0" }, { capabilities: options.elicit ? { elicitation: { form: {} } } : {} });
  if (options.elicit) client.setRequestHandler(ElicitRequestSchema, (req) => options.elicit!(req));
  await client.connect(transport);
  return {
    client,
    transport,
    async close() {
      await transport.terminateSession().catch(() => undefined);
      await client.close();
    },
  };
}

/** The text blocks of a result, in order. */
export function texts(result: CallToolResult): string[] {
  return result.content.filter((c): c is { type: "text"; text: string } => c.type === "text").map((c) => c.text);
}

export { CallToolResultSchema };
