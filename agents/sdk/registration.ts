import type { Settings } from "./options.js";
import type { RegisterParams } from "../../hub/wire/frames.js";
import { SDK_PROTOCOL } from "./protocol.js";
import type { SkillDefinition, SkillHandler } from "./types.js";

/** A skill as the agent holds it: its card entry (defaults filled in) and its handler. */
export interface SkillEntry {
  definition: Required<Pick<SkillDefinition, "id" | "name" | "description">> & SkillDefinition;
  handler: SkillHandler;
}

function isGeneratorFunction(fn: unknown): boolean {
  const name = (fn as { constructor?: { name?: string } })?.constructor?.name;
  return name === "AsyncGeneratorFunction" || name === "GeneratorFunction";
}

/**
 * The `agent.register` params: name, token, the card with its skills, whether the agent streams, the protocol
 * version, and (after a drop) the tasks still running here, so the hub does not hand them over a second time.
 */
export function registerParams(settings: Settings, skills: readonly SkillEntry[], running: readonly string[] = []): RegisterParams {
  const { name, token, card, streaming } = settings;
  const definitions = skills.map((s) => s.definition);
  const streams = streaming ?? skills.some((s) => isGeneratorFunction(s.handler));
  return {
    agent_name: name,
    ...(token && { auth_token: token }),
    card: {
      name,
      description: `${name} (a2a-router SDK agent)`,
      ...card,
      capabilities: { streaming: streams, ...(card?.capabilities as object | undefined) },
      skills: definitions,
    },
    skills: definitions,
    streaming: streams,
    protocol: SDK_PROTOCOL,
    ...(running.length > 0 && { running: [...running] }),
  };
}

/**
 * Whether a refusal of our registration will pass by itself: after a drop, the hub may still hold our
 * previous link until it notices the drop, and then says the name is already connected.
 */
export function isTransientRefusal(message: string, everRegistered: boolean): boolean {
  return everRegistered && /already connected/i.test(message);
}
