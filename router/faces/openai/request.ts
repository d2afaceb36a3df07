/** Reading an OpenAI chat-completions request: validated at the edge, then trusted. */
import type { Request } from "express";
import { MAX_ID_CHARS } from "../../service/id-limits.js";

/** What the face needs from a `POST /v1/chat/completions` body. */
export interface CompletionRequest {
  model: string;
  /** The last user message's text: the task's message. */
  text: string;
  stream: boolean;
  /** `stream_options.include_usage`: a last chunk with `usage` (zeros: agents do not count tokens). */
  includeUsage: boolean;
  /** The body's `user`, else header `X-Session-Id`: the A2A session (context) id. */
  sessionId?: string;
}

export type Parsed<T> = { ok: true; value: T } | { ok: false; message: string; param: string };

/** Validates the body; the earlier messages are the session's business (the agent or its context id). */
export function parseCompletionRequest(body: unknown, req: Request): Parsed<CompletionRequest> {
  if (typeof body !== "object" || body === null || Array.isArray(body)) return { ok: false, message: "the body must be a JSON object", param: "body" };
  const b = body as Record<string, unknown>;
  if (b.model !== undefined && b.model !== null && typeof b.model !== "string")
    return { ok: false, message: "model must be a string (an agent id; see GET /v1/models)", param: "model" };
  if (typeof b.model !== "string" || b.model === "") return { ok: false, message: "model is required (an agent id; see GET /v1/models)", param: "model" };
  // Fields that change what happens: another type is a mistake, not "the default" (OpenAI refuses them too).
  if (b.stream !== undefined && b.stream !== null && typeof b.stream !== "boolean") return { ok: false, message: "stream must be a boolean", param: "stream" };
  if (b.user !== undefined && b.user !== null && typeof b.user !== "string")
    return { ok: false, message: "user must be a string (the session id)", param: "user" };
  if (!Array.isArray(b.messages) || b.messages.length === 0) return { ok: false, message: "messages must be a non-empty array", param: "messages" };
  const index = b.messages.findLastIndex((m) => (m as { role?: unknown } | null)?.role === "user");
  if (index < 0) return { ok: false, message: "messages must contain a user message", param: "messages" };
  const text = contentText((b.messages[index] as { content?: unknown }).content);
  if (text === undefined) return { ok: false, message: "the user message's content must be a string or text parts", param: `messages[${index}].content` };
  const user = typeof b.user === "string" && b.user !== "" ? b.user : undefined;
  const header = req.get("x-session-id");
  const sessionId = user ?? (header !== undefined && header !== "" ? header : undefined);
  if (sessionId !== undefined && sessionId.length > MAX_ID_CHARS) {
    const param = user !== undefined ? "user" : "X-Session-Id";
    return { ok: false, message: `${param} (the session id) is longer than ${MAX_ID_CHARS} characters`, param };
  }
  const includeUsage = (b.stream_options as { include_usage?: unknown } | undefined)?.include_usage === true;
  return { ok: true, value: { model: b.model, text, stream: b.stream === true, includeUsage, ...(sessionId !== undefined && { sessionId }) } };
}

/** A message's text: a string, or the text of its `{type: "text", text}` parts (others are skipped). */
function contentText(content: unknown): string | undefined {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return undefined;
  let out = "";
  for (const part of content) {
    const p = part as { type?: unknown; text?: unknown } | null;
    if (p?.type === "text" && typeof p.text === "string") out += p.text;
  }
  return out;
}
