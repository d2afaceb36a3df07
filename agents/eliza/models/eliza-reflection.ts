/**
 * A pocket version of Weizenbaum's ELIZA (1966): decomposition patterns, pronoun reflection, reassembly.
 * It is how the offline `local` model answers small talk "in character" without any network.
 * Deterministic: the same message always gets the same answer.
 */

const REFLECTIONS: Record<string, string> = {
  i: "you",
  me: "you",
  my: "your",
  mine: "yours",
  am: "are",
  "i'm": "you're",
  "i've": "you've",
  "i'll": "you'll",
  you: "I",
  your: "my",
  yours: "mine",
  "you're": "I'm",
  are: "am",
  myself: "yourself",
  yourself: "myself",
};

/** Rules in priority order; `$1` is the reflected first capture. */
const RULES: Array<[RegExp, string[]]> = [
  [/\bi need (.+)/i, ["Why do you need $1?", "Would it really help you to get $1?"]],
  [/\bi (?:am|'m|m) (.+)/i, ["How long have you been $1?", "Why do you say you are $1?"]],
  [/\bi feel (.+)/i, ["Do you often feel $1?", "Tell me more about feeling $1."]],
  [/\bi want (.+)/i, ["What would it mean to you if you got $1?", "Why do you want $1?"]],
  [/\bbecause\b/i, ["Is that the real reason?", "What other reasons come to mind?"]],
  [/\b(?:mother|father|mom|dad|family|sister|brother)\b/i, ["Tell me more about your family."]],
  [/\b(?:sorry|apologi[sz]e)\b/i, ["There is no need to apologize."]],
  [/\byou are (.+)/i, ["What makes you think I am $1?"]],
  [/\b(?:yes|yeah)\b/i, ["You seem quite sure.", "I see. Can you elaborate?"]],
  [/\bno\b/i, ["Why not?", "You are being a bit negative."]],
  [/\?\s*$/, ["Why do you ask?", "What do you think?"]],
];

const FALLBACKS = ["Please tell me more.", "How does that make you feel?", "I see. Go on.", "Very interesting. Please continue."];

/** A stable small hash, so choices vary by message but never between runs. */
export function stableHash(text: string): number {
  let h = 2166136261;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 16777619);
  }
  return h >>> 0;
}

function reflect(fragment: string): string {
  return fragment
    .replace(/[.!?\s]+$/, "")
    .split(/\s+/)
    .map((word) => REFLECTIONS[word.toLowerCase()] ?? word)
    .join(" ");
}

/** ELIZA's answer to `message`. */
export function elizaReply(message: string): string {
  const pick = (options: string[]) => options[stableHash(message) % options.length];
  for (const [pattern, answers] of RULES) {
    const m = pattern.exec(message);
    if (m) return pick(answers).replace("$1", reflect(m[1] ?? ""));
  }
  return pick(FALLBACKS);
}
