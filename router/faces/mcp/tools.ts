/**
 * One MCP tool per agent the caller may use (CONTRACT 16): the name is the agent id in MCP's tool-name
 * alphabet, the description comes from the card with its skills, and every tool takes the same input.
 */
import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import type { AgentConnector } from "../../core/agent.js";

/** The input every agent tool takes. */
export const TOOL_INPUT_SCHEMA = {
  type: "object",
  properties: {
    message: { type: "string", description: "What to say to the agent (one turn of the conversation)." },
    contextId: { type: "string", description: "The conversation to continue (structuredContent.contextId of an earlier call)." },
    taskId: { type: "string", description: "A task waiting for input (state input-required) that this message answers." },
  },
  required: ["message"],
} as const;

/** What every call answers in `structuredContent`. */
export const TOOL_OUTPUT_SCHEMA = {
  type: "object",
  properties: {
    taskId: { type: "string" },
    contextId: { type: "string" },
    state: { type: "string", description: "The A2A state the turn ended in: completed, input-required, failed, canceled, rejected." },
  },
  required: ["taskId", "contextId", "state"],
} as const;

/** The tool name of an agent id: characters outside `[A-Za-z0-9_.-]` become `_`. */
export function toolName(agentId: string): string {
  return agentId.replace(/[^A-Za-z0-9_.-]/g, "_");
}

/** The tool of an agent. */
export function toolOf(agent: AgentConnector): Tool {
  const { info } = agent;
  const card = info.card ?? {};
  const described = typeof card.description === "string" && card.description !== "" ? card.description : info.description;
  const lines = [described || `The A2A agent "${info.name}".`];
  if (info.skills.length > 0) {
    lines.push("", "Skills:");
    for (const s of info.skills) lines.push(`- ${s.name}${s.description ? `: ${s.description}` : ""}`);
  }
  return {
    name: toolName(info.id),
    title: info.name,
    description: lines.join("\n"),
    inputSchema: TOOL_INPUT_SCHEMA as unknown as Tool["inputSchema"],
    outputSchema: TOOL_OUTPUT_SCHEMA as unknown as Tool["outputSchema"],
    execution: { taskSupport: "optional" },
  };
}

/** The agent a tool name stands for, among the agents a caller may use. */
export function agentOfTool(name: string, agents: readonly AgentConnector[]): AgentConnector | undefined {
  return agents.find((a) => a.info.id === name) ?? agents.find((a) => toolName(a.info.id) === name);
}

/** A fingerprint of a tool list: when it changes, hosts are told (`notifications/tools/list_changed`). */
export function toolsFingerprint(agents: readonly AgentConnector[]): string {
  return agents
    .filter((a) => a.isOnline())
    .map((a) => `${a.info.id}\u0000${a.info.description}\u0000${a.info.skills.map((s) => s.name).join(",")}`)
    .sort()
    .join("\u0001");
}
