/** Reading an OpenAI chat-completions request: validated at the edge, then trusted. */
import type { Request } from "express";
import { MAX_ID_CHARS } from "../../service/id-limits.js";
import { requestDigest } from "../../service/idempotency.js";

/** What the face needs from a `POST /v1/chat/completions` body. */
export interface CompletionRequest {
  model: string;
  /** The last user message's text: the task's message. */
  text: string;
  stream: boolean;
  /** `stream_options.include_usage`: a last chunk with `usage` (zeros: agents do not count tokens). */
  includeUsage: boolean;
  /** Header `X-Session-Id`: the A2A session (context) id, chosen by the client. */
  sessionId?: string;
  /** The body's `user`: who the end user is, a label only (CONTRACT 14), never the session. */
  user?: string;
  /**
   * The conversation before the last user message, as `conversationDigest` reads it: the key of the session
   * that answered it (absent: no earlier user or assistant message, a new conversation).
   */
  earlier?: string;
  /** The conversation up to and with the last user message (its `ConversationLine`s), to record once answered. */
  asked: ConversationLine[];
}

/** One message of a conversation as the router recognizes it again: its role and its text, trimmed. */
export type ConversationLine = [role: string, text: string];

/** Roles that set up a conversation rather than say something in it. */
const SETUP_ROLES = new Set(["system", "developer"]);

/** The digest of a conversation's lines: what a later request's earlier messages are matched by. */
export function conversationDigest(lines: readonly ConversationLine[]): string {
  return requestDigest(lines);
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
    return { ok: false, message: "user must be a string (the end user's label)", param: "user" };
  if (!Array.isArray(b.messages) || b.messages.length === 0) return { ok: false, message: "messages must be a non-empty array", param: "messages" };
  const index = b.messages.findLastIndex((m) => (m as { role?: unknown } | null)?.role === "user");
  if (index < 0) return { ok: false, message: "messages must contain a user message", param: "messages" };
  const text = contentText((b.messages[index] as { content?: unknown }).content);
  if (text === undefined) return { ok: false, message: "the user message's content must be a string or text parts", param: `messages[${index}].content` };
  const user = typeof b.user === "string" && b.user !== "" ? b.user : undefined;
  if (user !== undefined && user.length > MAX_ID_CHARS) return { ok: false, message: `user is longer than ${MAX_ID_CHARS} characters`, param: "user" };
  const header = req.get("x-session-id");
  const sessionId = header !== undefined && header !== "" ? header : undefined;
  if (sessionId !== undefined && sessionId.length > MAX_ID_CHARS) {
    return { ok: false, message: `X-Session-Id (the session id) is longer than ${MAX_ID_CHARS} characters`, param: "X-Session-Id" };
  }
  const lines = conversationLines(b.messages.slice(0, index));
  const asked = [...lines, ["user", text.trim()] as ConversationLine];
  const includeUsage = (b.stream_options as { include_usage?: unknown } | undefined)?.include_usage === true;
  return {
    ok: true,
    value: {
      model: b.model,
      text,
      stream: b.stream === true,
      includeUsage,
      asked,
      ...(sessionId !== undefined && { sessionId }),
      ...(user !== undefined && { user }),
      ...(lines.length > 0 && { earlier: conversationDigest(lines) }),
    },
  };
}

/** The messages that say something (not system or developer ones), as lines; content that is not text reads as "". */
function conversationLines(messages: readonly unknown[]): ConversationLine[] {
  const lines: ConversationLine[] = [];
  for (const m of messages) {
    const role = (m as { role?: unknown } | null)?.role;
    if (typeof role !== "string" || SETUP_ROLES.has(role)) continue;
    lines.push([role, (contentText((m as { content?: unknown }).content) ?? "").trim()]);
  }
  return lines;
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
