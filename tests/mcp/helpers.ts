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
  /** The fetch the transport uses (a test's network). */
  fetch?: typeof fetch;
}

/** An SDK Client connected to `${url}/mcp`. */
export async function connectMcp(url: string, options: PeerOptions = {}): Promise<McpPeer> {
  const headers = { ...(options.apiKey !== undefined && { authorization: `Bearer ${options.apiKey}` }), ...options.headers };
  const transport = new StreamableHTTPClientTransport(new URL(`${url}/mcp`), {
    requestInit: { headers },
    ...(options.sessionId !== undefined && { sessionId: options.sessionId }),
    ...(options.reconnect !== undefined && { reconnectionOptions: options.reconnect }),
    ...(options.fetch !== undefined && { fetch: options.fetch }),
  });
  const client = new Client({ name: "mcp-test", version: "1.0.0" }, { capabilities: options.elicit ? { elicitation: { form: {} } } : {} });
  if (options.elicit) client.setRequestHandler(ElicitRequestSchema, (req) => options.elicit!(req));
  await client.connect(transport);
  return {
    client,
    transport,
    // The client stops first (so it does not resume the streams the session's end closes), then the session ends.
    async close() {
      const sessionId = transport.sessionId;
      await client.close();
      if (sessionId !== undefined) await fetch(`${url}/mcp`, { method: "DELETE", headers: { ...headers, "mcp-session-id": sessionId } }).catch(() => undefined);
    },
  };
}

/** The text blocks of a result, in order. */
export function texts(result: CallToolResult): string[] {
  return result.content.filter((c): c is { type: "text"; text: string } => c.type === "text").map((c) => c.text);
}

export { CallToolResultSchema };

/**
 * A network between the client and the router that the test controls: it can cut the stream of the call in
 * flight (the client sees a dropped connection and resumes with Last-Event-ID), hold resumptions until the test
 * lets them go, and send every request from now on to another router.
 */
export class TestNetwork {
  /** Last-Event-ID of every resumption the client made, in order. */
  readonly resumes: string[] = [];
  /** Where requests go instead of the URL the client was given (another instance), when set. */
  target: string | undefined;
  #cuts: Array<() => void> = [];
  #hold: Promise<void> | undefined;
  #release: (() => void) | undefined;

  /** Cuts every call stream open now. */
  cut(): void {
    for (const cut of this.#cuts.splice(0)) cut();
  }

  /** Resumptions wait until `release()`. */
  hold(): void {
    this.#hold = new Promise((resolve) => (this.#release = resolve));
  }

  release(): void {
    this.#release?.();
    this.#hold = undefined;
  }

  readonly fetch: typeof fetch = async (input, init) => {
    let url = input instanceof Request ? input.url : String(input);
    if (this.target) url = this.target + new URL(url).pathname;
    const lastEventId = new Headers(init?.headers).get("last-event-id");
    if ((init?.method ?? "GET") === "GET" && lastEventId) {
      this.resumes.push(lastEventId);
      await this.#hold;
    }
    const res = await fetch(url, init);
    const isCall = init?.method === "POST" && typeof init.body === "string" && init.body.includes('"tools/call"');
    if (!isCall || !res.body || !res.headers.get("content-type")?.includes("text/event-stream")) return res;
    const reader = res.body.getReader();
    let cut: (() => void) | undefined;
    const body = new ReadableStream<Uint8Array>({
      start: (controller) => {
        cut = () => {
          controller.error(new TypeError("network connection lost"));
          void reader.cancel().catch(() => undefined);
        };
        this.#cuts.push(cut);
      },
      pull: async (controller) => {
        try {
          const { done, value } = await reader.read();
          if (done) controller.close();
          else controller.enqueue(value);
        } catch {
          // cut
        }
      },
    });
    return new Response(body, { status: res.status, headers: res.headers });
  };
}
