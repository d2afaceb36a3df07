import type { AgentInfo, AgentSkill } from "../core/agent.js";
import { requestedA2AVersion, v03CardMembers, v10CardMembers } from "../dialects/index.js";

/** What the cards need to know about the router itself. */
export interface CardContext {
  /** Public base URL of the router, e.g. http://127.0.0.1:8080 */
  baseUrl: string;
  version: string;
  /** Whether push notification methods work (a PushNotifier is wired in). */
  pushNotifications: boolean;
  /** Whether GetExtendedAgentCard / agent/getAuthenticatedExtendedCard answer with a card. */
  extendedCard?: boolean;
  /** Whether clients must send an API key (`Authorization: Bearer <key>` or `X-API-Key`). */
  apiKeyRequired?: boolean;
  /** The router's gRPC port, when the gRPC binding is on (CONTRACT 17): cards then list a GRPC interface. */
  grpcPort?: number;
}

/**
 * Which clients a card is written for. `v1.0`: a client that asked for A2A 1.0 (`A2A-Version: 1.0`, or a v1.0
 * method such as GetExtendedAgentCard) gets only the members the v1.0 AgentCard message defines, so a strict
 * ProtoJSON parser accepts it. `all`: a client that names no version (0.3 per spec 3.6) or 0.3/0.1 gets one
 * document every generation reads, as @a2a-js/sdk's server serves its v0.3-compatible card.
 */
export type CardAudience = "v1.0" | "all";

/** The audience of a card request from its A2A-Version (header or query parameter). */
export function cardAudience(a2aVersion: string | undefined): CardAudience {
  return requestedA2AVersion(a2aVersion) === "1.0" ? "v1.0" : "all";
}

/** The JSON-RPC interface versions every router endpoint serves, best first (v0.1 needs no declaration). */
const INTERFACE_VERSIONS = ["1.0", "0.3"] as const;
const MEDIA_TYPES = ["text/plain", "application/json"];

/**
 * An agent's card as the router serves it, at /agents/{id}/.well-known/agent-card.json (and agent.json):
 * the agent's name and skills, the router's endpoint, since clients reach the agent through the router.
 *
 * For the `all` audience, one document readable by every generation of client, as A2A's own SDK serves during the 0.3 -> 1.0
 * migration: the v1.0 members (router/dialects/v10/card.ts: `supportedInterfaces` with a JSONRPC entry
 * per protocol version) and the v0.3/v0.1 ones (router/dialects/v03/card.ts: `url`, `protocolVersion`,
 * `preferredTransport`, `additionalInterfaces`) side by side, with what every generation shares
 * (`capabilities`, `skills` with `tags`); each client reads its own and ignores the rest (spec 5.7).
 * Every URL names /agents/{id}.
 */
export function agentCard(info: AgentInfo, ctx: CardContext, audience: CardAudience = "all"): Record<string, unknown> {
  const url = `${ctx.baseUrl}/agents/${encodeURIComponent(info.id)}`;
  const skills = info.skills.length > 0 ? info.skills : [{ id: info.id, name: info.name, description: info.description }];
  const base = card(info.name, info.description, url, skills, ctx, info.version ?? ctx.version, audience);
  if (info.extensions) base.capabilities = { ...(base.capabilities as object), extensions: info.extensions };
  // Every agent also speaks the v1.0 HTTP+JSON binding (CONTRACT 13), one path below its JSON-RPC endpoint.
  const rest = `${url}/rest`;
  return {
    ...base,
    supportedInterfaces: [
      ...(base.supportedInterfaces as unknown[]),
      { url: rest, protocolBinding: "HTTP+JSON", protocolVersion: "1.0" },
      ...grpcInterfaces(ctx, info.id),
    ],
    ...(audience === "all" && { additionalInterfaces: [...(base.additionalInterfaces as unknown[]), { url: rest, transport: "HTTP+JSON" }] }),
  };
}

/** The router's own card (/.well-known/agent-card.json): its endpoint is /rpc and its skills are its agents. */
export function routerCard(agents: AgentInfo[], ctx: CardContext, audience: CardAudience = "all"): Record<string, unknown> {
  const skills: AgentSkill[] = agents.map((a) => ({
    id: a.id,
    name: a.name,
    description: a.description || `Agent ${a.id}`,
    tags: ["agent", a.transport, ...(a.streaming ? ["streaming"] : [])],
    ...(a.skills.length > 0 && { examples: a.skills.flatMap((s) => s.examples ?? []).slice(0, 5) }),
  }));
  const description = "Routes A2A tasks to hosted, HTTP and WebSocket agents; select one with params.metadata.agent.";
  const base = card("a2a-router", description, `${ctx.baseUrl}/rpc`, skills, ctx, ctx.version, audience);
  return { ...base, supportedInterfaces: [...(base.supportedInterfaces as unknown[]), ...grpcInterfaces(ctx)] };
}

/**
 * The gRPC interface of a card, when the binding is on: `host:port` as gRPC clients take it (the host the card
 * names, the gRPC port), and the agent as the `tenant` every request carries (none: the router's default agent).
 * Only among the v1.0 members: a v0.3 `GRPC` transport is the v0.3 proto's service, which the router does not serve.
 */
function grpcInterfaces(ctx: CardContext, tenant?: string): Record<string, unknown>[] {
  if (ctx.grpcPort === undefined) return [];
  let host: string;
  try {
    host = new URL(ctx.baseUrl).hostname;
  } catch {
    return [];
  }
  return [{ url: `${host}:${ctx.grpcPort}`, protocolBinding: "GRPC", protocolVersion: "1.0", ...(tenant !== undefined && { tenant }) }];
}

function card(
  name: string,
  description: string,
  url: string,
  skills: AgentSkill[],
  ctx: CardContext,
  version: string,
  audience: CardAudience,
): Record<string, unknown> {
  const extended = ctx.extendedCard === true;
  const all = audience === "all";
  return {
    name,
    description: description || name,
    version,
    ...v10CardMembers(url, INTERFACE_VERSIONS),
    provider: { organization: "a2a-router", url: ctx.baseUrl },
    capabilities: {
      streaming: true,
      pushNotifications: ctx.pushNotifications,
      extendedAgentCard: extended,
      ...(all && { stateTransitionHistory: false }),
    },
    defaultInputModes: MEDIA_TYPES,
    defaultOutputModes: MEDIA_TYPES,
    skills: skills.map((s) => ({
      id: s.id,
      name: s.name,
      description: s.description || s.name,
      tags: s.tags ?? [],
      ...(s.examples && s.examples.length > 0 && { examples: s.examples }),
    })),
    ...(ctx.apiKeyRequired && (all ? security() : v10Security())),
    ...(all && v03CardMembers(url, extended)),
  };
}

/** The API key in the v1.0 AgentCard's own shape: each scheme is a `SecurityScheme` oneof, by its proto name. */
function v10Security(): Record<string, unknown> {
  return {
    securitySchemes: {
      bearer: { httpAuthSecurityScheme: { scheme: "bearer", description: "Authorization: Bearer <API key>" } },
      apiKey: { apiKeySecurityScheme: { location: "header", name: "X-API-Key", description: "The same API key in X-API-Key" } },
    },
    securityRequirements: [{ schemes: { bearer: { list: [] } } }, { schemes: { apiKey: { list: [] } } }],
  };
}

/**
 * The API key, declared for both generations: `securitySchemes` in the v0.3 shape (`type`-tagged, which
 * v1.0 clients such as @a2a-js/sdk also read), `security` (v0.3) and `securityRequirements` (v1.0).
 */
function security(): Record<string, unknown> {
  return {
    securitySchemes: {
      bearer: { type: "http", scheme: "bearer", description: "Authorization: Bearer <API key>" },
      apiKey: { type: "apiKey", in: "header", name: "X-API-Key", description: "The same API key in X-API-Key" },
    },
    security: [{ bearer: [] }, { apiKey: [] }],
    securityRequirements: [{ schemes: { bearer: { list: [] } } }, { schemes: { apiKey: { list: [] } } }],
  };
}
