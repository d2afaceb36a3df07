import type { Logger } from "pino";
import type { AgentInfo } from "../router/core/agent.js";
import type { AgentRegistry } from "../router/agents/registry.js";
import { RpcError } from "../router/rpc/errors.js";
import { HubAgentConnector, type HubLink } from "./hub-agent-connector.js";
import { HUB_DEFAULTS, type RegisterParams } from "./protocol.js";

export interface RegistrationOptions {
  registry: AgentRegistry;
  /** token -> agent name(s) it may register. */
  tokens: Record<string, string | string[]>;
  /** Agents may register without a token (names owned by a token still need theirs). */
  allowAnonymous: boolean;
  logger: Logger;
}

/**
 * Who may register which name (hub tokens, anonymous dev mode), and the registry's view of hub agents:
 * names known by configuration are listed offline until they connect; anonymous agents that left stay
 * listed, up to a bound.
 */
export class Registrations {
  #opts: RegistrationOptions;
  /** Maps, not objects: a token or name such as "__proto__" must find nothing. */
  #namesOf = new Map<string, readonly string[]>();
  #owners = new Map<string, string[]>();
  #offline = new Map<string, HubAgentConnector>();

  constructor(options: RegistrationOptions) {
    this.#opts = options;
    for (const [token, names] of Object.entries(options.tokens)) {
      const list = Array.isArray(names) ? names : [names];
      this.#namesOf.set(token, list);
      for (const name of list) {
        this.#owners.set(name, [...(this.#owners.get(name) ?? []), token]);
        // Known by configuration: listed offline until it connects, so clients get "agent unavailable".
        if (!options.registry.find(name)) options.registry.set(new HubAgentConnector(placeholderInfo(name)));
      }
    }
  }

  /**
   * Registers `p.agent_name` for a connection (its upgrade token, if any, and its link), or throws the
   * refusal the agent is told.
   */
  register(p: RegisterParams, upgradeToken: string | undefined, link: HubLink): HubAgentConnector {
    const name = p.agent_name;
    const token = p.auth_token ?? upgradeToken;
    this.#authorize(name, token);
    const { registry, logger } = this.#opts;
    const existing = registry.find(name);
    if (existing && !(existing instanceof HubAgentConnector)) {
      throw RpcError.invalidParams(`agent name "${name}" is taken by a ${existing.info.transport} agent`, "agent_name");
    }
    if (existing?.isOnline()) throw RpcError.invalidParams(`agent "${name}" is already connected`, "agent_name");
    const agent = existing ?? new HubAgentConnector(placeholderInfo(name));
    agent.attach(link, infoFrom(p), token, logger);
    this.#offline.delete(name);
    registry.set(agent);
    return agent;
  }

  /** The agent's connection is gone: anonymous agents are remembered offline, within a bound. */
  left(agent: HubAgentConnector): void {
    if (this.#owners.has(agent.info.id)) return;
    this.#offline.delete(agent.info.id);
    this.#offline.set(agent.info.id, agent);
    for (const [id, old] of this.#offline) {
      if (this.#offline.size <= HUB_DEFAULTS.maxOfflineAnonymous) break;
      this.#offline.delete(id);
      if (!old.isOnline() && !old.resuming && this.#opts.registry.find(id) === old) this.#opts.registry.delete(id);
    }
  }

  #authorize(name: string, token: string | undefined): void {
    if (token !== undefined) {
      const names = this.#namesOf.get(token);
      if (names === undefined) throw RpcError.invalidParams("invalid token", "auth_token");
      if (!names.includes(name)) throw RpcError.invalidParams(`token may not register agent "${name}"`, "agent_name");
    } else if (this.#owners.has(name)) {
      throw RpcError.invalidParams(`agent name "${name}" is owned by another token; send its token`, "auth_token");
    } else if (!this.#opts.allowAnonymous) {
      throw RpcError.invalidParams("a token is required to register (configure hub.tokens)", "auth_token");
    }
  }
}

function placeholderInfo(name: string): AgentInfo {
  return { id: name, name, description: `WebSocket agent ${name}`, transport: "ws", skills: [], streaming: true };
}

function infoFrom(p: RegisterParams): AgentInfo {
  const card = p.card ?? {};
  const cardSkills = Array.isArray(card.skills) ? (card.skills as RegisterParams["skills"]) : undefined;
  const skills = (p.skills ?? cardSkills ?? []).map((s) => ({
    id: s.id ?? s.name,
    name: s.name,
    description: s.description ?? "",
    ...(s.tags && { tags: s.tags }),
    ...(s.examples && { examples: s.examples }),
  }));
  const capabilities = card.capabilities as { streaming?: boolean } | undefined;
  return {
    id: p.agent_name,
    name: p.agent_name,
    description: p.description ?? (typeof card.description === "string" ? card.description : `WebSocket agent ${p.agent_name}`),
    transport: "ws",
    skills,
    streaming: p.streaming ?? capabilities?.streaming ?? true,
    ...(typeof card.version === "string" && { version: card.version }),
    ...(p.card && { card: p.card }),
  };
}
