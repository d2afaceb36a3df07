/**
 * How the offline `local` model fills an action's `<params>`: simple, predictable heuristics, no magic.
 * Per parameter, the first that matches wins:
 * 1. an explicit `name=value` or `name: value` in the message;
 * 2. an allowed value (`enum`) named in the message;
 * 3. dates (a parameter named for a date or day, or whose schema's format is `date`): an ISO date, or a
 *    relative one resolved against today's UTC date ("today", "tomorrow", "the day after tomorrow",
 *    "in 3 days", a weekday such as "Monday" or "next Monday": its next occurrence after today);
 * 4. the first match of the schema's `pattern`;
 * 5. numbers: a number followed by a word of the parameter's name ("2 passengers" for passengerCount);
 * 6. strings: the words after a preposition the parameter's name suggests (origin: "from", destination:
 *    "to", location: "in", date: "on", query/track/song: the text after the action's trigger word).
 * Anything not found is left out, so the runtime's validation reports it (or asks for it).
 */
import type { ActionParameter } from "../types.js";

const WEEKDAYS = ["sunday", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday"];
/** Words that end a captured phrase: prepositions, and the words of a relative date ("to Paris tomorrow"). */
const STOP_WORDS = `to|from|on|for|in|at|with|and|by|via|please|today|tomorrow|tonight|next|this|the day after|${WEEKDAYS.join("|")}`;
const ISO_DATE = /\b(\d{4}-\d{2}-\d{2})\b/;
const DAY_MS = 86_400_000;
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

function isDateParameter(param: ActionParameter): boolean {
  return param.schema.type === "string" && (param.schema.format === "date" || /date|day/i.test(param.name));
}

/** The date `text` names, as YYYY-MM-DD: an ISO date, or a relative one from `now`'s UTC date. */
export function findDate(text: string, now: Date = new Date()): string | undefined {
  const iso = ISO_DATE.exec(text);
  if (iso) return iso[1];
  const lower = text.toLowerCase();
  const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  const plus = (days: number) => new Date(today + days * DAY_MS).toISOString().slice(0, 10);
  if (/\b(the )?day after tomorrow\b/.test(lower)) return plus(2);
  if (/\btomorrow\b/.test(lower)) return plus(1);
  if (/\b(today|tonight)\b/.test(lower)) return plus(0);
  const inDays = /\bin (\d{1,3}) days?\b/.exec(lower);
  if (inDays) return plus(Number(inDays[1]));
  const weekday = new RegExp(`\\b(${WEEKDAYS.join("|")})\\b`).exec(lower);
  if (weekday) {
    const ahead = (WEEKDAYS.indexOf(weekday[1]!) - now.getUTCDay() + 7) % 7;
    return plus(ahead === 0 ? 7 : ahead);
  }
  return undefined;
}

function findOne(param: ActionParameter, text: string, trigger: string | undefined, now: Date): string | undefined {
  const explicit = new RegExp(`\\b${escapeRegExp(param.name)}\\s*[=:]\\s*("([^"]*)"|[^,;]+)`, "i").exec(text);
  if (explicit) return (explicit[2] ?? explicit[1]).trim();

  const allowed = param.schema.enum ?? param.schema.enumValues;
  if (allowed) {
    const lower = text.toLowerCase();
    const hit = allowed.find((v) => new RegExp(`\\b${escapeRegExp(v.toLowerCase())}\\b`).test(lower));
    if (hit !== undefined) return hit;
  }

  if (isDateParameter(param)) {
    const date = findDate(text, now);
    if (date) return date;
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
 * and validates them). `trigger` is the word that matched the action (e.g. "play"); `now` dates relative dates.
 */
export function findParameters(params: readonly ActionParameter[], text: string, trigger?: string, now: Date = new Date()): Record<string, string> {
  const out: Record<string, string> = {};
  for (const p of params) {
    const value = findOne(p, text, trigger, now);
    if (value !== undefined && value !== "") out[p.name] = value;
  }
  return out;
}

/**
 * The parameters an answer to a question for `wanted` gives: what findParameters finds, and when one
 * string parameter was asked for and nothing was found, the whole answer ("London" answers "where from?").
 */
export function findAnswer(wanted: readonly ActionParameter[], text: string, now: Date = new Date()): Record<string, string> {
  const found = findParameters(wanted, text, undefined, now);
  const only = wanted.length === 1 ? wanted[0]! : undefined;
  if (only && found[only.name] === undefined && only.schema.type === "string" && !isDateParameter(only)) {
    const answer = text
      .trim()
      .replace(/[.!?]+$/, "")
      .trim();
    if (answer !== "") found[only.name] = answer;
  }
  return found;
}
