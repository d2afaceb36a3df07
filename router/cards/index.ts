import type { AgentRegistry } from "../agents/registry.js";
import { TaskError } from "../core/errors.js";
import { agentCard, routerCard, type CardContext } from "./agent-card.js";

/** Agent cards: the router's and each agent's, in a shape every A2A dialect reads. */
export { agentCard, routerCard, type CardContext } from "./agent-card.js";

/**
 * The answer to GetExtendedAgentCard (v1.0) and agent/getAuthenticatedExtendedCard (v0.3): the card of
 * the agent the endpoint names, or the router's. The router has nothing to add for authenticated
 * clients (the API key already guards the endpoint), so the extended card is the public one; serving it
 * lets clients that follow `capabilities.extendedAgentCard` get an answer instead of an error.
 */
export function extendedCardProvider(
  agents: AgentRegistry,
  ctx: () => CardContext,
): (agentId: string | undefined) => Record<string, unknown> {
  return (agentId) => {
    if (agentId === undefined) return routerCard(agents.list().map((a) => a.info), ctx());
    const agent = agents.find(agentId);
    if (!agent) throw TaskError.unknownAgent(agentId);
    return agentCard(agent.info, ctx());
  };
}
