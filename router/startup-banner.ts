/**
 * What `a2a-router serve` tells a person at a terminal once it listens: where the chat page, the OpenAI base
 * URL, the A2A endpoints and the hub are. The log stays JSON lines (for collectors); the banner is printed
 * only when stdout is a terminal, so a piped or collected stdout holds JSON lines alone.
 */
import { routerLinks } from "./http/links.js";

export interface BannerInput {
  /** The listening address (`http://host:port`). */
  url: string;
  /** config.publicUrl: what clients use when the router sits behind a proxy. */
  publicUrl?: string;
  version?: string;
  /** The agents' ids, in registry order. */
  agents: readonly string[];
  /** The gRPC binding's port, when it is on. */
  grpcPort?: number;
}

/** The banner's text: a few aligned lines, no colour codes (they would garble a log file). */
export function startupBanner(input: BannerInput): string {
  const links = routerLinks(input.publicUrl ?? input.url);
  const rows: [string, string][] = [
    ["Chat page", links.chat],
    ["OpenAI base URL", links.openai],
    ["MCP server", links.mcp],
    ["A2A JSON-RPC", `${links.rpc}  (one agent: ${links.agent})`],
    ...(input.grpcPort !== undefined ? ([["A2A gRPC", `${new URL(input.url).hostname}:${input.grpcPort}  (tenant = agent id)`]] as [string, string][]) : []),
    ["Agent hub (WebSocket)", links.hub],
    ["Agents", input.agents.length > 0 ? input.agents.join(", ") : "none yet (connect one to the hub)"],
  ];
  const width = Math.max(...rows.map(([label]) => label.length));
  const title = `a2a-router${input.version ? ` ${input.version}` : ""} is listening on ${input.url}`;
  return ["", title, ...rows.map(([label, value]) => `  ${label.padEnd(width)}  ${value}`), ""].join("\n") + "\n";
}

/** Whether to print the banner: a person is watching stdout (a terminal), not a log collector. */
export function wantsBanner(stdout: { isTTY?: boolean } = process.stdout): boolean {
  return stdout.isTTY === true;
}
