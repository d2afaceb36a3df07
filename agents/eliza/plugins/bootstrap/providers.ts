/** The core providers: who the agent is, what was said, what it can do. */
import { rebuildAssistantText } from "../../transcript.js";
import type { Action, Provider } from "../../types.js";

function list(label: string, items: string[] | undefined): string {
  return items && items.length > 0 ? `${label}: ${items.join(", ")}` : "";
}

/** CHARACTER: name, bio, adjectives, topics, style. */
export const characterProvider: Provider = {
  name: "CHARACTER",
  description: "Who the agent is",
  position: -10,
  get: async (runtime) => {
    const c = runtime.character;
    const bio = Array.isArray(c.bio) ? c.bio.join(" ") : (c.bio ?? "");
    const text = [
      `# About ${c.name}`,
      bio,
      list("Adjectives", c.adjectives),
      list("Topics", c.topics),
      list("Style", [...(c.style?.all ?? []), ...(c.style?.chat ?? [])]),
    ]
      .filter((s) => s !== "")
      .join("\n");
    return { text, values: { bio, characterBio: bio } };
  },
};

/** RECENT_MESSAGES: the room's latest messages, oldest first, as "name: text" lines. */
export const recentMessagesProvider: Provider = {
  name: "RECENT_MESSAGES",
  description: "The conversation so far",
  position: 0,
  get: async (runtime, message) => {
    const memories = await runtime.getMemories({ roomId: message.roomId });
    const lines = memories
      .flatMap((m) => {
        const own = m.entityId === runtime.agentId;
        const name = own ? runtime.character.name : "user";
        const text = own ? rebuildAssistantText(m.content.text ?? "", m.content.actionCallbackHistory) : (m.content.text ?? "");
        // The reply streamed before an action's callbacks is part of what the user saw: the model sees it too.
        const pre = own && typeof m.content.preCallbackText === "string" ? [`${name}: ${m.content.preCallbackText}`] : [];
        return text ? [...pre, `${name}: ${text}`] : pre;
      })
      .filter((s) => s !== "");
    const recentMessages = lines.join("\n");
    return {
      text: lines.length > 0 ? `# Conversation\n${recentMessages}` : "",
      values: { recentMessages },
      data: { count: memories.length },
    };
  },
};

function describeParameters(action: Action): string {
  return (action.parameters ?? [])
    .map((p) => {
      const examples = p.examples?.length ? ` Examples: ${p.examples.map((e) => JSON.stringify(e)).join(", ")}` : "";
      const allowed = p.schema.enum ?? p.schema.enumValues;
      const choices = allowed ? ` One of: ${allowed.join(", ")}.` : "";
      return `  - ${p.name} (${p.schema.type}${p.required ? ", required" : ""}): ${p.description}.${choices}${examples}`;
    })
    .join("\n");
}

/** ACTIONS: the actions whose validate() passes now, with their parameters. */
export const actionsProvider: Provider = {
  name: "ACTIONS",
  description: "What the agent can do right now",
  position: 10,
  get: async (runtime, message, state) => {
    const usable: Action[] = [];
    for (const action of runtime.actions) {
      try {
        if (await action.validate(runtime, message, state)) usable.push(action);
      } catch {
        // a validate that throws hides the action; processActions reports it if the model picks it anyway
      }
    }
    const lines = usable.map((a) => `- ${a.name}: ${a.description}${a.similes?.length ? ` (also: ${a.similes.join(", ")})` : ""}`);
    const withParams = usable.filter((a) => a.parameters?.length);
    const params = withParams.map((a) => `${a.name}:\n${describeParameters(a)}`);
    const text = [`# Available actions`, ...lines, ...(params.length ? ["# Action parameters", ...params] : [])].join("\n");
    return { text, values: { actionNames: usable.map((a) => a.name).join(", ") }, data: { actions: usable.map((a) => a.name) } };
  },
};
