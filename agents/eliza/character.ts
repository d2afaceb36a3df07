/**
 * Character files: JSON with `name`, `bio`, `system`, `templates`, `settings` (docs/eliza.md) and the
 * other elizaOS fields. Checked once at start-up; a bad file is refused with one line naming the file and
 * the field.
 */
import { readFile } from "node:fs/promises";
import { Ajv, type ErrorObject } from "ajv";
import defaultCharacterJson from "./characters/default.json" with { type: "json" };
import type { Character } from "./types.js";

const stringList = { type: "array", items: { type: "string" } };

/** The JSON Schema of a character file (unknown fields are allowed: elizaOS characters carry many). */
export const CHARACTER_SCHEMA = {
  type: "object",
  required: ["name"],
  properties: {
    name: { type: "string", minLength: 1 },
    bio: { anyOf: [{ type: "string" }, stringList] },
    system: { type: "string" },
    templates: { type: "object", additionalProperties: { type: "string" } },
    settings: { type: "object" },
    plugins: stringList,
    topics: stringList,
    adjectives: stringList,
    style: { type: "object", properties: { all: stringList, chat: stringList, post: stringList } },
    messageExamples: {
      type: "array",
      items: {
        type: "array",
        items: {
          type: "object",
          required: ["name", "content"],
          properties: { name: { type: "string" }, content: { type: "object" } },
        },
      },
    },
  },
} as const;

const validate = new Ajv({ allErrors: false, strict: false }).compile(CHARACTER_SCHEMA);

/** `/templates/messageHandlerTemplate` -> `templates.messageHandlerTemplate`. */
function fieldName(error: ErrorObject): string {
  const parts = error.instancePath.split("/").filter((s) => s !== "");
  if (error.keyword === "required") parts.push((error.params as { missingProperty: string }).missingProperty);
  return parts.map((p, i) => (/^\d+$/.test(p) ? `[${p}]` : i === 0 ? p : `.${p}`)).join("") || "(root)";
}

function describe(error: ErrorObject): string {
  if (error.keyword === "required") return `"${fieldName(error)}" is required`;
  if (error.keyword === "anyOf") return `"${fieldName(error)}" must be a string or an array of strings`;
  return `"${fieldName(error)}" ${error.message ?? "is invalid"}`;
}

/**
 * Checks a character object; returns a copy. Throws an Error `<label>: <problem>` (one line) when it does
 * not fit the schema.
 */
export function checkCharacter(value: unknown, label: string): Character {
  if (!validate(value)) {
    const errors = validate.errors ?? [];
    const error = errors.find((e) => e.keyword === "anyOf") ?? errors[0];
    throw new Error(`${label}: ${error ? describe(error) : "is not a valid character"}`);
  }
  return structuredClone(value) as Character;
}

/** Reads and checks a character file. Errors name the file: `character file PATH: <problem>`. */
export async function loadCharacterFile(path: string): Promise<Character> {
  const label = `character file ${path}`;
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (err) {
    throw new Error(`${label}: cannot read it: ${(err as Error).message}`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    throw new Error(`${label}: not valid JSON: ${(err as Error).message}`);
  }
  return checkCharacter(parsed, label);
}

/** The character the agent uses when none is configured (agents/eliza/characters/default.json). */
export function defaultCharacter(): Character {
  return checkCharacter(defaultCharacterJson, "built-in character characters/default.json");
}
