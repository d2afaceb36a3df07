import type { Logger } from "pino";
import type { AgentExtension, AgentInfo } from "../router/core/agent.js";
import type { AgentRegistry } from "../router/agents/registry.js";
import { HubRefusal } from "./wire/errors.js";
import { HubAgentConnector, type HubLink } from "./hub-agent-connector.js";
import { HUB_DEFAULTS, type RegisterParams } from "./protocol.js";

export interface RegistrationOptions {
  registry: AgentRegistry;
  /** token -> agent name(s) it may register. */
  tokens: Record<string, string | string[]>;
  /** Agents may register without a token (names owned by a token still need theirs). */
  allowAnonymous: boolean;
  logger: Logger;
  /** Routers sharing one store (router/cluster): agent names are claimed cluster-wide. */
  cluster?: HubCluster;
}

/** One agent name, one connection, in the whole cluster. */
export interface HubCluster {
  /** Claims `name` for connection `conn`; false when a connection of another live instance holds it. */
  claimAgent(name: string, conn: string, info: AgentInfo): Promise<boolean>;
  /** Frees `name` if connection `conn` still holds it. */
  releaseAgent(name: string, conn: string): void;
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
  /** Names being claimed cluster-wide right now (a second local registration of one is refused). */
  #claiming = new Set<string>();

  constructor(options: RegistrationOptions) {
    this.#opts = options;
    for (const [token, names] of Object.entries(options.tokens)) {
      const list = Array.isArray(names) ? names : [names];
      this.#namesOf.set(token, list);
      for (const name of list) {
        this.#owners.set(name, [...(this.#owners.get(name) ?? []), token]);
        // Known by configuration: listed offline until it connects, so clients get "agent unavailable".
        if (!options.registry.findLocal(name)) options.registry.set(new HubAgentConnector(placeholderInfo(name)));
      }
    }
  }

  /**
   * Registers `p.agent_name` for a connection (its upgrade token, if any, its link and id), or throws the
   * refusal the agent is told. In a cluster the name is claimed in Redis first; `stillOpen` says whether the
   * connection survived that wait.
   */
  async register(p: RegisterParams, upgradeToken: string | undefined, link: HubLink, connId: string, stillOpen: () => boolean): Promise<HubAgentConnector> {
    const name = p.agent_name;
    const token = p.auth_token ?? upgradeToken;
    this.#authorize(name, token);
    const existing = this.#opts.registry.findLocal(name);
    if (existing && !(existing instanceof HubAgentConnector)) {
      throw HubRefusal.invalidParams(`agent name "${name}" is taken by a ${existing.info.transport} agent`, "agent_name");
    }
    const alreadyConnected = () => HubRefusal.invalidParams(`agent "${name}" is already connected`, "agent_name");
    if (existing?.isOnline() || this.#claiming.has(name)) throw alreadyConnected();
    const cluster = this.#opts.cluster;
    if (cluster) {
      this.#claiming.add(name);
      try {
        const claimed = await cluster.claimAgent(name, connId, infoFrom(p)).catch(() => {
          throw HubRefusal.internal("the agent registry of the router cluster cannot be reached");
        });
        if (!claimed) throw alreadyConnected();
        if (!stillOpen()) {
          // It left while the name was being claimed.
          cluster.releaseAgent(name, connId);
          throw alreadyConnected();
        }
      } finally {
        this.#claiming.delete(name);
      }
    }
    return this.#attach(name, p, token, link);
  }

  /** Attaches a registered connection to its agent (the one seen before under that name, or a new one). */
  #attach(name: string, p: RegisterParams, token: string | undefined, link: HubLink): HubAgentConnector {
    const { registry, logger } = this.#opts;
    const existing = registry.findLocal(name) as HubAgentConnector | undefined;
    if (existing?.isOnline()) throw HubRefusal.invalidParams(`agent "${name}" is already connected`, "agent_name");
    const agent = existing ?? new HubAgentConnector(placeholderInfo(name));
    agent.attach(link, infoFrom(p), token, logger, p.protocol ?? 1, p.running);
    this.#offline.delete(name);
    registry.set(agent);
    return agent;
  }

  /**
   * The agent's connection `connId` is gone: its cluster-wide name is freed, and anonymous agents are
   * remembered offline, within a bound.
   */
  left(agent: HubAgentConnector, connId: string): void {
    this.#opts.cluster?.releaseAgent(agent.info.id, connId);
    if (this.#owners.has(agent.info.id)) return;
    this.#offline.delete(agent.info.id);
    this.#offline.set(agent.info.id, agent);
    for (const [id, old] of this.#offline) {
      if (this.#offline.size <= HUB_DEFAULTS.maxOfflineAnonymous) break;
      this.#offline.delete(id);
      if (!old.isOnline() && !old.resuming && this.#opts.registry.findLocal(id) === old) this.#opts.registry.delete(id);
    }
  }

  #authorize(name: string, token: string | undefined): void {
    if (token !== undefined) {
      const names = this.#namesOf.get(token);
      if (names === undefined) throw HubRefusal.invalidParams("invalid token", "auth_token");
      if (!names.includes(name)) throw HubRefusal.invalidParams(`token may not register agent "${name}"`, "agent_name");
    } else if (this.#owners.has(name)) {
      throw HubRefusal.invalidParams(`agent name "${name}" is owned by another token; send its token`, "auth_token");
    } else if (!this.#opts.allowAnonymous) {
      throw HubRefusal.invalidParams("a token is required to register (configure hub.tokens)", "auth_token");
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
    ...(p.protocol === 2 && extensionsOf(card)),
  };
}

/**
 * The extensions a protocol 2 agent's card declares (`capabilities.extensions`), kept for the card the router
 * serves for it: a client then sees which extensions the agent supports or requires.
 */
function extensionsOf(card: Record<string, unknown>): Pick<AgentInfo, "extensions"> {
  const listed = (card.capabilities as { extensions?: unknown } | undefined)?.extensions;
  if (!Array.isArray(listed)) return {};
  const extensions = listed.filter((e): e is AgentExtension => !!e && typeof e === "object" && typeof (e as AgentExtension).uri === "string");
  return extensions.length > 0 ? { extensions } : {};
}
