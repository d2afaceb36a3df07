import type { AgentConnector } from "./agent.js";

/** How the engine finds agents; the registry implements it. */
export interface AgentDirectory {
  /** By id or by name. */
  find(idOrName: string): AgentConnector | undefined;
}
