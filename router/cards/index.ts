import type { AgentRegistry } from "../agents/registry.js";
import { TaskError } from "../core/errors.js";
import { agentCard, routerCard, type CardAudience, type CardContext } from "./agent-card.js";

/** Agent cards: the router's and each agent's, in a shape every A2A dialect reads, and their caching headers. */
export { agentCard, cardAudience, routerCard, type CardAudience, type CardContext } from "./agent-card.js";
export { CARD_MAX_AGE_SECONDS, CardHeaders } from "./card-headers.js";

/**
 * The answer to GetExtendedAgentCard (v1.0, in the v1.0 shape) and agent/getAuthenticatedExtendedCard (v0.3):
 * the card of the agent the endpoint names, or the router's. The router has nothing to add for authenticated
 * clients (the API key already guards the endpoint), so the extended card is the public one. It exists only
 * where there is authentication: without API keys no caller is authenticated, the cards advertise none
 * (`capabilities.extendedAgentCard: false`) and the router is given no provider (extended-card-not-configured).
 */
export function extendedCardProvider(
  agents: AgentRegistry,
  ctx: () => CardContext,
): (agentId: string | undefined, audience: CardAudience) => Record<string, unknown> {
  return (agentId, audience) => {
    if (agentId === undefined)
      return routerCard(
        agents.list().map((a) => a.info),
        ctx(),
        audience,
      );
    const agent = agents.find(agentId);
    if (!agent) throw TaskError.unknownAgent(agentId);
    return agentCard(agent.info, ctx(), audience);
  };
}
