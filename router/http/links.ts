/** The public URLs of the router's faces: one home for the start-up banner and `GET /`. */

/** Where a client finds each face, from the router's base URL (publicUrl when configured). */
export interface RouterLinks {
  chat: string;
  openai: string;
  mcp: string;
  rpc: string;
  agent: string;
  agents: string;
  hub: string;
  health: string;
}

/** The links of a router whose clients reach it at `baseUrl` (a trailing slash is dropped). */
export function routerLinks(baseUrl: string): RouterLinks {
  const base = baseUrl.replace(/\/+$/, "");
  return {
    chat: `${base}/chat`,
    openai: `${base}/v1`,
    mcp: `${base}/mcp`,
    rpc: `${base}/rpc`,
    agent: `${base}/agents/{agentId}`,
    agents: `${base}/agents`,
    hub: `${base.replace(/^http/, "ws")}/hub`,
    health: `${base}/healthz`,
  };
}

/** What `GET /` lists, by name. */
const INDEX_LABELS: Record<string, string> = {
  chat: "Chat page",
  openai: "OpenAI-compatible API (base URL)",
  mcp: "MCP server (Streamable HTTP)",
  rpc: "A2A JSON-RPC endpoint",
  card: "The router's agent card",
  agents: "Agents (JSON; one agent's A2A endpoint: /agents/{agentId})",
  hub: "Agent hub (WebSocket)",
  health: "Health check",
};

/** `GET /` for a browser: the same links as the JSON index, as a small HTML page (every value escaped). */
export function indexPage(index: Record<string, string>): string {
  const esc = (v: string) => v.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
  const items = Object.entries(INDEX_LABELS)
    .filter(([key]) => index[key] !== undefined)
    .map(([key, label]) => {
      const url = index[key]!;
      const link = /^https?:/.test(url) ? `<a href="${esc(url)}">${esc(url)}</a>` : `<code>${esc(url)}</code>`;
      return `<li>${esc(label)}: ${link}</li>`;
    });
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>a2a-router</title><style>body{font:16px/1.5 system-ui,sans-serif;margin:2rem auto;max-width:40rem;padding:0 1rem}li{margin:.4rem 0;overflow-wrap:anywhere}</style></head>
<body><h1>a2a-router ${esc(index.version ?? "")}</h1><ul>
${items.join("\n")}
</ul></body></html>
`;
}
