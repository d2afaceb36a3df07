/** Reads examples out of docs/eliza.md and docs/eliza-plugins.md, so tests run what the docs show. */
import { readFileSync } from "node:fs";
import { resolve } from "node:path";

/** The repository root (tests run with it as cwd). */
export const ROOT = resolve(process.cwd());

export function readDoc(name: "eliza.md" | "eliza-plugins.md"): string {
  return readFileSync(resolve(ROOT, "docs", name), "utf8");
}

/** The body of the fenced block whose first line is `firstLine` (e.g. "// shout.mjs"); throws when absent. */
export function codeBlock(markdown: string, firstLine: string): string {
  const blocks = [...markdown.matchAll(/^```[a-z]*\n([\s\S]*?)^```$/gm)].map((m) => m[1]);
  const block = blocks.find((b) => b.split("\n")[0].trim() === firstLine || b.startsWith(firstLine));
  if (block === undefined) throw new Error(`no code block starting with ${JSON.stringify(firstLine)} in the doc`);
  return block;
}

/** The text between the line `from` and the next line starting with `until` (the end when absent). */
export function section(markdown: string, from: string, until: string): string {
  const start = markdown.indexOf(`\n${from}\n`);
  if (start < 0) throw new Error(`no line ${JSON.stringify(from)} in the doc`);
  const end = markdown.indexOf(`\n${until}`, start + from.length + 2);
  return markdown.slice(start, end < 0 ? undefined : end);
}

/** Doc text writes a blank line inside a code span as `\n\n`. */
export function unescapeNewlines(text: string): string {
  return text.replace(/\\n/g, "\n");
}
