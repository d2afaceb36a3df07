/**
 * The offline `local` model: what `npm start` answers with, no network, no key. It is not a language
 * model; it is deterministic and honest about it:
 * - actions are picked when the message names them: the action's name ("book flight"), a simile or a tag,
 *   as whole words; matches are ordered by priority, then by where they appear; REPLY always comes first;
 * - parameters come from local-parameters.ts's heuristics, also when a message answers the question for an
 *   action's missing parameters (`purpose: "parameters"`);
 * - the reply text is, in order: the agent line of a character `messageExamples` pair whose user line is
 *   the message; for a matched action, the agent line of its first example (else "On it."); a greeting for
 *   a greeting; otherwise a classic ELIZA reflection.
 * It answers in elizaOS's XML and streams it in a few chunks, like a real server would.
 */
import { ModelType, type Action, type GenerateTextParams, type ModelRequestContext, type ModelTypeName } from "../types.js";
import { escapeXml } from "../xml.js";
import { elizaReply } from "./eliza-reflection.js";
import { findAnswer, findParameters } from "./local-parameters.js";
import type { TextModel } from "./text-model.js";

/** Actions the local model never picks by keyword: they are the runtime's own. */
const BUILT_IN = new Set(["REPLY", "IGNORE", "NONE"]);
const GREETING = /^\s*(hi|hello|hey|good (morning|afternoon|evening)|greetings)\b/i;
const STOP = /\b(be quiet|shut up|stop talking)\b/i;

interface ActionMatch {
  action: Action;
  at: number;
  trigger: string;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** Where the first of `terms` occurs in `text` as whole words, with the term; undefined when none. */
function firstHit(text: string, terms: string[]): { at: number; term: string } | undefined {
  let best: { at: number; term: string } | undefined;
  for (const term of terms) {
    if (term.trim() === "") continue;
    const m = new RegExp(`\\b${escapeRegExp(term)}\\b`, "i").exec(text);
    if (m && (!best || m.index < best.at)) best = { at: m.index, term: m[0] };
  }
  return best;
}

/** The actions a message names, in execution order. */
export function matchActions(text: string, actions: readonly Action[]): ActionMatch[] {
  const matches: ActionMatch[] = [];
  for (const action of actions) {
    if (BUILT_IN.has(action.name.toUpperCase())) continue;
    const terms = [action.name, action.name.replace(/_/g, " "), ...(action.similes ?? []), ...(action.tags ?? [])];
    const hit = firstHit(text, terms);
    if (hit) matches.push({ action, at: hit.at, trigger: hit.term });
  }
  return matches.sort((a, b) => (b.action.priority ?? 0) - (a.action.priority ?? 0) || a.at - b.at);
}

function exampleReply(action: Action): string | undefined {
  for (const conversation of action.examples ?? []) {
    const agentLine = conversation.find((line, i) => i > 0 && typeof line.content?.text === "string");
    if (agentLine) return agentLine.content.text as string;
  }
  return undefined;
}

function characterExample(context: ModelRequestContext): string | undefined {
  const said = context.messageText.trim().toLowerCase();
  for (const pair of context.character.messageExamples ?? []) {
    const [user, agent] = pair;
    if (user?.content?.text?.trim().toLowerCase() === said && typeof agent?.content?.text === "string") {
      return agent.content.text;
    }
  }
  return undefined;
}

function replyText(context: ModelRequestContext, matches: ActionMatch[]): string {
  const fromCharacter = characterExample(context);
  if (fromCharacter) return fromCharacter;
  if (matches.length > 0) return exampleReply(matches[0].action) ?? "On it.";
  if (GREETING.test(context.messageText)) {
    return `Hello, I am ${context.character.name}. What would you like to talk about?`;
  }
  return elizaReply(context.messageText);
}

function paramsXml(matches: ActionMatch[], text: string): string {
  const blocks: string[] = [];
  for (const { action, trigger } of matches) {
    if (!action.parameters?.length) continue;
    const found = findParameters(action.parameters, text, trigger);
    const inner = Object.entries(found)
      .map(([k, v]) => `<${k}>${escapeXml(v)}</${k}>`)
      .join("");
    blocks.push(`<${action.name}>${inner}</${action.name}>`);
  }
  return blocks.length > 0 ? `<params>${blocks.join("")}</params>` : "";
}

/** The local model's whole answer for a message-handler request, as elizaOS XML split into stream chunks. */
export function localResponseChunks(context: ModelRequestContext): string[] {
  if (context.purpose === "parameters" && context.wanted) {
    const { action, parameters } = context.wanted;
    const found = findAnswer(parameters, context.messageText);
    const inner = Object.entries(found)
      .map(([k, v]) => `<${k}>${escapeXml(v)}</${k}>`)
      .join("");
    return [`<response><params><${action}>${inner}</${action}></params></response>`];
  }
  if (context.purpose === "shouldRespond") {
    const action = STOP.test(context.messageText) ? "STOP" : "RESPOND";
    return [`<response><name>${escapeXml(context.character.name)}</name><reasoning>local rule</reasoning><action>${action}</action></response>`];
  }
  const matches = matchActions(context.messageText, context.actions);
  const names = ["REPLY", ...matches.map((m) => m.action.name)];
  const thought = matches.length > 0 ? `The user asks for ${names.slice(1).join(", ")}.` : "The user is talking; I answer in character.";
  const text = escapeXml(replyText(context, matches));
  const head = `<response><thought>${escapeXml(thought)}</thought><actions>${names.join(",")}</actions><providers></providers><text>`;
  const tail = `</text>${paramsXml(matches, context.messageText)}</response>`;
  return [head, ...splitWords(text, 3), tail];
}

/** Splits text into at most `parts` pieces at spaces (the pieces join back to the text exactly). */
function splitWords(text: string, parts: number): string[] {
  const words = text.split(/(?<= )/);
  const size = Math.ceil(words.length / parts);
  const out: string[] = [];
  for (let i = 0; i < words.length; i += size) out.push(words.slice(i, i + size).join(""));
  return out.length > 0 ? out : [""];
}

/** Lets other work (and the consumer of the stream) run between chunks, as a network would. */
const nextTick = () => new Promise<void>((resolve) => setImmediate(resolve));

export class LocalModel implements TextModel {
  readonly provider = "local" as const;

  async generate(type: ModelTypeName, params: GenerateTextParams): Promise<string> {
    const chunks = params.context ? localResponseChunks(params.context) : [type === ModelType.TEXT_SMALL ? "OK" : elizaReply(params.prompt)];
    let out = "";
    for (const chunk of chunks) {
      if (params.signal?.aborted) throw params.signal.reason;
      out += chunk;
      params.onStreamChunk?.(chunk);
      await nextTick();
    }
    return out;
  }
}
