/** Reading a `POST /v1/responses` body: validated at the edge, then trusted. Errors name the field (OpenAI's `param`). */
import type { Request } from "express";
import { MAX_ID_CHARS } from "../../service/id-limits.js";
import { type InputFile, readInputParts } from "./input-parts.js";

/** What the face needs from a create request. */
export interface ResponsesRequest {
  model: string;
  /** The last user input's text: the turn's message. */
  text: string;
  /** Its images and files, as A2A file parts. */
  files: InputFile[];
  previousResponseId?: string;
  stream: boolean;
  background: boolean;
  /** The request's `metadata`, given back on the response beside the router's `a2a_*` keys. */
  metadata: Record<string, string>;
  /**
   * Header `Idempotency-Key` (CONTRACT 14), read here and nowhere else. The service-layer idempotency of every
   * face takes it where the turn starts (routes.ts, the one `startChatTurn` call).
   */
  idempotencyKey?: string;
}

export type Parsed<T> = { ok: true; value: T } | { ok: false; message: string; param: string };

/** OpenAI's own limits on `metadata`. */
const METADATA = { keys: 16, keyChars: 64, valueChars: 512 };

/** Keys the router sets on every response's metadata: a request may not set them. */
export const ROUTER_METADATA_PREFIX = "a2a_";

const fail = (message: string, param: string): Parsed<never> => ({ ok: false, message, param });

/** Validates the body; fields the router has no use for (instructions, tools, temperature, store, ...) are ignored. */
export function parseResponsesRequest(body: unknown, req: Request): Parsed<ResponsesRequest> {
  if (typeof body !== "object" || body === null || Array.isArray(body)) return fail("the body must be a JSON object", "body");
  const b = body as Record<string, unknown>;
  if (typeof b.model !== "string" || b.model === "") return fail("model is required: a string naming an agent (see GET /v1/models)", "model");
  for (const flag of ["stream", "background"] as const) {
    if (b[flag] !== undefined && b[flag] !== null && typeof b[flag] !== "boolean") return fail(`${flag} must be a boolean`, flag);
  }
  const previous = b.previous_response_id;
  if (previous !== undefined && previous !== null && (typeof previous !== "string" || previous === ""))
    return fail("previous_response_id must be a response id (resp_...)", "previous_response_id");
  const metadata = parseMetadata(b.metadata);
  if (!metadata.ok) return metadata;
  const text = inputText(b.input);
  if (!text.ok) return text;
  const key = req.get("idempotency-key");
  if (key !== undefined && key.length > MAX_ID_CHARS) return fail(`Idempotency-Key is longer than ${MAX_ID_CHARS} characters`, "Idempotency-Key");
  return {
    ok: true,
    value: {
      model: b.model,
      text: text.value.text,
      files: text.value.files,
      ...(typeof previous === "string" && { previousResponseId: previous }),
      stream: b.stream === true,
      background: b.background === true,
      metadata: metadata.value,
      ...(key !== undefined && key !== "" && { idempotencyKey: key }),
    },
  };
}

function parseMetadata(value: unknown): Parsed<Record<string, string>> {
  if (value === undefined || value === null) return { ok: true, value: {} };
  if (typeof value !== "object" || Array.isArray(value)) return fail("metadata must be an object of string values", "metadata");
  const entries = Object.entries(value as Record<string, unknown>);
  if (entries.length > METADATA.keys) return fail(`metadata has more than ${METADATA.keys} keys`, "metadata");
  for (const [k, v] of entries) {
    if (k.length > METADATA.keyChars) return fail(`metadata keys are at most ${METADATA.keyChars} characters`, "metadata");
    if (k.startsWith(ROUTER_METADATA_PREFIX)) return fail(`metadata keys starting with "${ROUTER_METADATA_PREFIX}" are the router's`, `metadata.${k}`);
    if (typeof v !== "string") return fail("metadata values must be strings", `metadata.${k}`);
    if (v.length > METADATA.valueChars) return fail(`metadata values are at most ${METADATA.valueChars} characters`, `metadata.${k}`);
  }
  return { ok: true, value: Object.fromEntries(entries) as Record<string, string> };
}

/**
 * The turn's message: `input` itself when it is a string, else the last user message item (`{role: "user",
 * content}` with or without `type: "message"`): its text parts, images and files. Earlier items are the
 * conversation's business (previous_response_id carries it).
 */
function inputText(input: unknown): Parsed<{ text: string; files: InputFile[] }> {
  if (typeof input === "string") return input === "" ? fail("input must not be empty", "input") : { ok: true, value: { text: input, files: [] } };
  if (!Array.isArray(input) || input.length === 0) return fail("input must be a string or a non-empty array of input items", "input");
  const index = input.findLastIndex((item) => isUserMessage(item));
  if (index < 0) return fail('input must contain a user message item ({role: "user", content})', "input");
  const content = (input[index] as { content?: unknown }).content;
  if (typeof content === "string")
    return content === "" ? fail("input must not be empty", `input[${index}].content`) : { ok: true, value: { text: content, files: [] } };
  if (!Array.isArray(content) || content.length === 0)
    return fail("a user message's content must be a string or a non-empty array of input parts", `input[${index}].content`);
  const read = readInputParts(content, `input[${index}].content`);
  if (!read.ok) return fail(read.message, read.param);
  if (read.text === "" && read.files.length === 0) return fail("input must not be empty", `input[${index}].content`);
  return { ok: true, value: { text: read.text, files: read.files } };
}

function isUserMessage(item: unknown): boolean {
  if (typeof item !== "object" || item === null) return false;
  const it = item as { type?: unknown; role?: unknown };
  return it.role === "user" && (it.type === undefined || it.type === "message");
}
