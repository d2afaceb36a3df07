import type { AgentConnector } from "../core/agent.js";
import type { AgentDirectory } from "../core/agent-directory.js";

/**
 * Every agent the router can route to, by id (and by name). Hosted and HTTP agents are added at
 * start-up; hub agents come and go with their connections and stay listed (offline) once seen.
 */
export class AgentRegistry implements AgentDirectory {
  #byId = new Map<string, AgentConnector>();

  set(agent: AgentConnector): void {
    this.#byId.set(agent.info.id, agent);
  }

  delete(id: string): void {
    this.#byId.delete(id);
  }

  find(idOrName: string): AgentConnector | undefined {
    const direct = this.#byId.get(idOrName);
    if (direct) return direct;
    for (const agent of this.#byId.values()) if (agent.info.name === idOrName) return agent;
    return undefined;
  }

  list(): AgentConnector[] {
    return [...this.#byId.values()];
  }
}
