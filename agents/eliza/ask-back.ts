import { agentMemory } from "./memory.js";
import type { Message } from "../../router/core/model.js";
import type { MessageHooks, MessageOptions, MessageOutcome } from "./message-handler.js";
import { processActions, type ActionOutcome } from "./process-actions.js";
import type { AgentRuntime } from "./runtime.js";
import { composePromptFromState, parametersTemplate } from "./templates.js";
import { ModelType, type Content, type Memory } from "./types.js";
import { parseKeyValueXml, type XmlRecord } from "./xml.js";

/** The key, in the metadata of the question's message, of what the question waits for. */
export const PENDING_ACTION_KEY = "elizaPendingAction";

/** An action waiting for the user's answer: the parameters it has, and those it asked for. */
export interface PendingAction {
  action: string;
  parameters: Record<string, unknown>;
  missing: string[];
}

/** What the turn's outcome asks for, if it asks: its last action outcome's missing parameters. */
export function pendingActionOf(results: readonly ActionOutcome[]): PendingAction | undefined {
  const last = results.at(-1);
  if (!last?.missingParameters?.length) return undefined;
  return { action: last.action, parameters: last.parameters ?? {}, missing: [...last.missingParameters] };
}

/** The action the task's last agent message asked for, if it asked: the next message answers it. */
export function askedInHistory(history: readonly Message[]): PendingAction | undefined {
  for (let i = history.length - 1; i >= 0; i--) {
    const message = history[i]!;
    if (message.role !== "agent") continue;
    const pending = message.metadata?.[PENDING_ACTION_KEY] as Partial<PendingAction> | undefined;
    if (!pending || typeof pending.action !== "string" || !Array.isArray(pending.missing)) return undefined;
    const parameters = pending.parameters && typeof pending.parameters === "object" ? pending.parameters : {};
    return { action: pending.action, parameters, missing: pending.missing.filter((m): m is string => typeof m === "string") };
  }
  return undefined;
}

/**
 * Handles the user's answer to a question for `pending`'s parameters: stores the message, reads the answer
 * for them, and runs the action with them merged into the earlier ones (or asks again for what is still
 * missing). An action that no longer exists is a failed outcome.
 */
export async function answerPendingAction(
  runtime: AgentRuntime,
  message: Memory & { id: string },
  pending: PendingAction,
  hooks: MessageHooks,
  options: MessageOptions = {},
): Promise<MessageOutcome> {
  await runtime.createMemory(message, "messages");
  const action = runtime.getAction(pending.action);
  const text = message.content.text ?? "";
  const wanted = (action?.parameters ?? []).filter((p) => pending.missing.includes(p.name));
  let params: XmlRecord = {};
  if (action && wanted.length > 0) {
    const state = await runtime.composeState(message);
    state.values = {
      ...state.values,
      actionName: action.name,
      parameterList: wanted.map((p) => `- ${p.name} (${p.schema.type}): ${p.description}`).join("\n"),
      messageText: text,
      today: new Date().toISOString().slice(0, 10),
    };
    const answer = await runtime.useModel(ModelType.TEXT_LARGE, {
      prompt: composePromptFromState({ state, template: runtime.character.templates?.parametersTemplate ?? parametersTemplate }),
      signal: options.signal,
      context: {
        purpose: "parameters",
        messageText: text,
        character: runtime.character,
        actions: [action],
        wanted: { action: action.name, parameters: wanted },
      },
    });
    params = (parseKeyValueXml(answer)?.params as XmlRecord | undefined) ?? {};
  }
  const response: Content = {
    thought: `The user answered the question for ${pending.action}'s ${pending.missing.join(", ")}.`,
    actions: [pending.action],
    providers: [],
    text: "",
    params,
    inReplyTo: message.id,
  };
  const responseMemory: Memory = agentMemory(runtime.agentId, message.roomId, response);
  const state = await runtime.composeState(message, ["ACTIONS"]);
  const actionResults = await processActions(runtime, message, [responseMemory], state, hooks.callback, {
    signal: options.signal,
    onStreamChunk: hooks.onActionChunk,
    onActionStart: (name) => hooks.onActionStart?.(name),
    earlier: { [action?.name ?? pending.action]: pending.parameters },
  });
  return { status: "responded", response, actionResults };
}
