import type { AgentConnector } from "../core/agent.js";
import type { AgentDirectory } from "../core/agent-directory.js";

/** Agents connected to other router instances of a cluster (router/cluster), as this registry shows them. */
export interface RemoteAgentSource {
  findRemote(idOrName: string): AgentConnector | undefined;
  listRemote(): AgentConnector[];
}

/**
 * Every agent the router can route to, by id (and by name). Hosted and HTTP agents are added at
 * start-up; hub agents come and go with their connections and stay listed (offline) once seen. In a cluster,
 * hub agents connected to other instances are listed too (online), unless one of this instance's own online
 * agents has their name.
 */
export class AgentRegistry implements AgentDirectory {
  #byId = new Map<string, AgentConnector>();
  #remote: RemoteAgentSource | undefined;

  set(agent: AgentConnector): void {
    this.#byId.set(agent.info.id, agent);
  }

  delete(id: string): void {
    this.#byId.delete(id);
  }

  /** Adds the agents of the other instances of a cluster. */
  setRemote(source: RemoteAgentSource): void {
    this.#remote = source;
  }

  find(idOrName: string): AgentConnector | undefined {
    const local = this.findLocal(idOrName);
    if (local?.isOnline()) return local;
    return this.#remote?.findRemote(idOrName) ?? local;
  }

  /** This instance's own agents only (what the hub and cluster hand-overs run). */
  findLocal(idOrName: string): AgentConnector | undefined {
    const direct = this.#byId.get(idOrName);
    if (direct) return direct;
    for (const agent of this.#byId.values()) if (agent.info.name === idOrName) return agent;
    return undefined;
  }

  list(): AgentConnector[] {
    const out = new Map<string, AgentConnector>();
    for (const agent of this.#byId.values()) out.set(agent.info.id, agent);
    for (const agent of this.#remote?.listRemote() ?? []) {
      if (!out.get(agent.info.id)?.isOnline()) out.set(agent.info.id, agent);
    }
    return [...out.values()];
  }
}
