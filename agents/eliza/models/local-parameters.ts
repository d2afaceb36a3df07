/**
 * How the offline `local` model fills an action's `<params>`: simple, predictable heuristics, no magic.
 * Per parameter, the first that matches wins:
 * 1. an explicit `name=value` or `name: value` in the message;
 * 2. an allowed value (`enum`) named in the message;
 * 3. the first match of the schema's `pattern`;
 * 4. numbers: a number followed by a word of the parameter's name ("2 passengers" for passengerCount);
 * 5. strings: the words after a preposition the parameter's name suggests (origin: "from", destination:
 *    "to", location: "in", date: "on", query/track/song: the text after the action's trigger word).
 * Anything not found is left out, so the runtime's validation reports it.
 */
import type { ActionParameter } from "../types.js";

/** Words that end a captured phrase. */
const STOP_WORDS = "to|from|on|for|in|at|with|and|by|via|please";
const PHRASE = `([^,.;!?]+?)(?=\\s+(?:${STOP_WORDS})\\b|[,.;!?]|$)`;

/** Checked in order: "departureDate" is a date before it is a departure. */
const PREPOSITIONS: Array<[RegExp, string]> = [
  [/date|day|when/i, "on"],
  [/location|city|place|where/i, "in"],
  [/origin|^from$|source|departure|start/i, "from"],
  [/destination|^to$|target|arrival/i, "to"],
];

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** `passengerCount` -> ["passenger", "count"]. */
function nameWords(name: string): string[] {
  return name
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .split(/[\s_-]+/)
    .map((w) => w.toLowerCase())
    .filter((w) => w.length > 2);
}

function findOne(param: ActionParameter, text: string, trigger?: string): string | undefined {
  const explicit = new RegExp(`\\b${escapeRegExp(param.name)}\\s*[=:]\\s*("([^"]*)"|[^,;]+)`, "i").exec(text);
  if (explicit) return (explicit[2] ?? explicit[1]).trim();

  const allowed = param.schema.enum ?? param.schema.enumValues;
  if (allowed) {
    const lower = text.toLowerCase();
    const hit = allowed.find((v) => new RegExp(`\\b${escapeRegExp(v.toLowerCase())}\\b`).test(lower));
    if (hit !== undefined) return hit;
  }

  if (param.schema.pattern) {
    try {
      const m = new RegExp(param.schema.pattern).exec(text);
      if (m) return m[0];
    } catch {
      // an invalid pattern is reported when the schema is compiled
    }
  }

  const words = nameWords(param.name);
  if (param.schema.type === "number") {
    for (const word of words) {
      const m = new RegExp(`(\\d+(?:\\.\\d+)?)\\s+${escapeRegExp(word)}`, "i").exec(text);
      if (m) return m[1];
    }
    return undefined;
  }

  if (param.schema.type === "string") {
    for (const [test, preposition] of PREPOSITIONS) {
      if (!test.test(param.name)) continue;
      const m = new RegExp(`\\b${preposition}\\s+${PHRASE}`, "i").exec(text);
      if (m) return m[1].trim();
    }
    if (trigger && /query|track|song|title|search|topic|text/i.test(param.name)) {
      const m = new RegExp(`\\b${escapeRegExp(trigger)}\\s+(.+?)[.!?]*$`, "i").exec(text);
      if (m) return m[1].trim();
    }
  }
  return undefined;
}

/**
 * The parameters the local model can find in `text` for an action, as raw strings (the runtime coerces
 * and validates them). `trigger` is the word that matched the action (e.g. "play").
 */
export function findParameters(params: readonly ActionParameter[], text: string, trigger?: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const p of params) {
    const value = findOne(p, text, trigger);
    if (value !== undefined && value !== "") out[p.name] = value;
  }
  return out;
}
