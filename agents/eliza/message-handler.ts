/**
 * The message pipeline, as in elizaOS's message handler: message stored -> shouldRespond (bypassed for
 * direct sources) -> composeState -> messageHandlerTemplate -> model (streamed) -> parseKeyValueXml with up
 * to 3 attempts -> a simple REPLY goes straight to the callback, anything else runs the action chain ->
 * evaluators. A newer message in the same room makes the reply stale: it is discarded before any action
 * runs (latestResponseIds). Persisting the assistant turn is the caller's job (it knows what was shown).
 */
import { randomUUID } from "node:crypto";
import { agentMemory } from "./memory.js";
import { processActions, type ActionOutcome, type TurnCallback } from "./process-actions.js";
import type { AgentRuntime } from "./runtime.js";
import { shouldBypassShouldRespond } from "./should-respond.js";
import { composePromptFromState, messageHandlerTemplate, shouldRespondTemplate } from "./templates.js";
import { ModelType, type Content, type Memory, type ModelRequestContext, type State } from "./types.js";
import { parseKeyValueXml, type KeyValueXml, type XmlRecord } from "./xml.js";

/** How many times the model is asked for a complete reply (elizaOS: maxRetries). */
export const MAX_MODEL_ATTEMPTS = 3;
/** shouldRespond answers that mean "stay silent". */
const NON_RESPONSE_ACTIONS = ["IGNORE", "NONE", "STOP"];

export interface MessageHooks {
  /** Raw model output of the reply as it arrives; `attempt` counts from 1 (a new one restarts the reply). */
  onModelChunk(chunk: string, attempt: number): void;
  /** Content sent to the user: the reply (from "REPLY") or an action's callback. */
  callback: TurnCallback;
  /** Text an action streams (append semantics). */
  onActionChunk(chunk: string): Promise<void>;
  /** An action's handler is about to run (see ProcessActionsOptions.onActionStart). */
  onActionStart?(action: string): void;
}

export interface MessageOptions {
  signal?: AbortSignal;
  /** Channel type of the room ("dm", "group", ...), for the shouldRespond bypass. */
  roomType?: string;
}

export interface MessageOutcome {
  status: "responded" | "ignored" | "discarded";
  /** What the model decided (thought, actions, text, params). */
  response?: Content;
  actionResults: ActionOutcome[];
}

function requestContext(runtime: AgentRuntime, message: Memory, purpose: ModelRequestContext["purpose"]): ModelRequestContext {
  return { purpose, messageText: message.content.text ?? "", character: runtime.character, actions: [...runtime.actions] };
}

async function decideToRespond(runtime: AgentRuntime, message: Memory, options: MessageOptions): Promise<boolean> {
  if (shouldBypassShouldRespond(options.roomType, message.content.source)) return true;
  const state = await runtime.composeState(message);
  const prompt = composePromptFromState({
    state,
    template: runtime.character.templates?.shouldRespondTemplate ?? shouldRespondTemplate,
  });
  const answer = await runtime.useModel(ModelType.TEXT_SMALL, {
    prompt,
    signal: options.signal,
    context: requestContext(runtime, message, "shouldRespond"),
  });
  const action = parseKeyValueXml(answer)?.action;
  return typeof action === "string" && !NON_RESPONSE_ACTIONS.includes(action.trim().toUpperCase());
}

function toContent(parsed: KeyValueXml): Content {
  const text = typeof parsed.text === "string" ? parsed.text : "";
  const actions = Array.isArray(parsed.actions) && parsed.actions.length > 0 ? (parsed.actions as string[]) : undefined;
  return {
    thought: typeof parsed.thought === "string" ? parsed.thought : "",
    // elizaOS falls back to IGNORE; a reply that has text but forgot <actions> is a reply.
    actions: actions ?? [text ? "REPLY" : "IGNORE"],
    providers: Array.isArray(parsed.providers) ? (parsed.providers as string[]) : [],
    text,
    params: (parsed.params as XmlRecord | undefined) ?? {},
  };
}

async function generateResponse(runtime: AgentRuntime, message: Memory, state: State, hooks: MessageHooks, signal?: AbortSignal): Promise<Content> {
  const prompt = composePromptFromState({
    state,
    template: runtime.character.templates?.messageHandlerTemplate ?? messageHandlerTemplate,
  });
  let content: Content | undefined;
  let lastRaw = "";
  for (let attempt = 1; attempt <= MAX_MODEL_ATTEMPTS; attempt++) {
    lastRaw = await runtime.useModel(ModelType.TEXT_LARGE, {
      prompt,
      signal,
      onStreamChunk: (chunk) => hooks.onModelChunk(chunk, attempt),
      context: requestContext(runtime, message, "messageHandler"),
    });
    const parsed = parseKeyValueXml(lastRaw);
    if (parsed) content = toContent(parsed);
    if (parsed && typeof parsed.thought === "string" && parsed.thought !== "" && Array.isArray(parsed.actions)) break;
    runtime.logger.debug({ attempt }, "incomplete model reply; asking again");
  }
  if (!content) {
    const excerpt = lastRaw.trim().replace(/\s+/g, " ").slice(0, 200);
    throw new Error(`the model's reply had no <response> XML after ${MAX_MODEL_ATTEMPTS} attempts: "${excerpt}"`);
  }
  return content;
}

/**
 * Handles one incoming message. Resolves with what happened; rejects when the model fails (its message
 * names the cause) or the signal aborts. Action errors do not reject: they are failed outcomes.
 */
export async function handleMessage(
  runtime: AgentRuntime,
  message: Memory & { id: string },
  hooks: MessageHooks,
  options: MessageOptions = {},
): Promise<MessageOutcome> {
  const responseId = randomUUID();
  runtime.latestResponseIds.set(message.roomId, responseId);
  const isLatest = () => runtime.latestResponseIds.get(message.roomId) === responseId;
  try {
    await runtime.createMemory(message, "messages");

    if (!(await decideToRespond(runtime, message, options))) {
      const ignore: Content = { thought: "Agent decided not to respond to this message.", actions: ["IGNORE"], simple: true, inReplyTo: message.id };
      await hooks.callback(ignore, "IGNORE");
      await runtime.createMemory({ entityId: runtime.agentId, agentId: runtime.agentId, roomId: message.roomId, content: ignore });
      await runEvaluators(runtime, message, await runtime.composeState(message), hooks, [], true);
      return { status: "ignored", response: ignore, actionResults: [] };
    }

    let state = await runtime.composeState(message, ["ACTIONS"]);
    const response = await generateResponse(runtime, message, state, hooks, options.signal);
    if (!isLatest()) {
      runtime.logger.info({ roomId: message.roomId }, "response discarded: a newer message is being processed");
      return { status: "discarded", response, actionResults: [] };
    }
    response.inReplyTo = message.id;
    response.simple = response.actions?.length === 1 && response.actions[0].toUpperCase() === "REPLY" && (response.providers?.length ?? 0) === 0;
    const responseMemory: Memory = agentMemory(runtime.agentId, message.roomId, response);
    if (response.providers?.length) state = await runtime.composeState(message, ["ACTIONS", ...response.providers]);

    let actionResults: ActionOutcome[] = [];
    if (response.simple && response.text) {
      await hooks.callback(response, "REPLY");
    } else {
      actionResults = await processActions(runtime, message, [responseMemory], state, hooks.callback, {
        signal: options.signal,
        onStreamChunk: hooks.onActionChunk,
        onActionStart: (name) => hooks.onActionStart?.(name),
      });
    }
    await runEvaluators(runtime, message, state, hooks, [responseMemory]);
    return { status: "responded", response, actionResults };
  } finally {
    if (isLatest()) runtime.latestResponseIds.delete(message.roomId);
  }
}

/** Evaluators run after the response; only `alwaysRun` ones when the agent stayed silent. */
async function runEvaluators(runtime: AgentRuntime, message: Memory, state: State, hooks: MessageHooks, responses: Memory[], silent = false): Promise<void> {
  for (const evaluator of runtime.evaluators) {
    if (silent && !evaluator.alwaysRun) continue;
    try {
      if (!(await evaluator.validate(runtime, message, state))) continue;
      await evaluator.handler(runtime, message, state, {}, (c) => hooks.callback(c, evaluator.name), responses);
    } catch (err) {
      runtime.logger.warn({ err, evaluator: evaluator.name }, "evaluator failed");
    }
  }
}
