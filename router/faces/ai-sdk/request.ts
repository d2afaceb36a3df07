/** Reading the body `useChat` + `DefaultChatTransport` sends: `{id, messages, trigger, messageId, ...body}`. */
import type { Request } from "express";
import type { FilePart } from "../../core/model.js";
import { MAX_ID_CHARS } from "../../service/id-limits.js";
import { readFilePart } from "../shared/file-parts.js";

export interface UiChatRequest {
  /** The chat id: the A2A session (context) id. */
  chatId: string;
  /** The last user message's text: the task's message. */
  text: string;
  /** The last user message's file parts, as A2A file parts (with `field`, for a refusal naming it). */
  files: { part: FilePart; field: string }[];
  /** Body `agent`, else header `X-Agent`; absent: the default agent. */
  agent?: string;
}

export type Parsed<T> = { ok: true; value: T } | { ok: false; message: string; field: string };

export function parseUiChatRequest(body: unknown, req: Request): Parsed<UiChatRequest> {
  if (typeof body !== "object" || body === null || Array.isArray(body)) return { ok: false, message: "the body must be a JSON object", field: "body" };
  const b = body as Record<string, unknown>;
  if (typeof b.id !== "string" || b.id === "") return { ok: false, message: "id (the chat id) is required", field: "id" };
  if (b.id.length > MAX_ID_CHARS) return { ok: false, message: `id (the chat id) is longer than ${MAX_ID_CHARS} characters`, field: "id" };
  if (!Array.isArray(b.messages)) return { ok: false, message: "messages must be an array of UI messages", field: "messages" };
  const index = b.messages.findLastIndex((m) => (m as { role?: unknown } | null)?.role === "user");
  if (index < 0) return { ok: false, message: "messages must contain a user message", field: "messages" };
  const parts = (b.messages[index] as { parts?: unknown }).parts;
  if (!Array.isArray(parts)) return { ok: false, message: "a UI message has parts", field: `messages[${index}].parts` };
  let text = "";
  const files: UiChatRequest["files"] = [];
  for (const [i, part] of parts.entries()) {
    const p = part as { type?: unknown; text?: unknown } | null;
    if (p?.type === "text" && typeof p.text === "string") text += p.text;
    if (p?.type === "file") {
      const field = `messages[${index}].parts[${i}]`;
      const read = readFilePart(p as Record<string, unknown>, field);
      if (!read.ok) return read;
      files.push({ part: read.part, field });
    }
  }
  if (b.agent !== undefined && b.agent !== null && typeof b.agent !== "string")
    return { ok: false, message: "agent must be a string (an agent id or name)", field: "agent" };
  const header = req.get("x-agent");
  const agent = typeof b.agent === "string" && b.agent !== "" ? b.agent : header !== undefined && header !== "" ? header : undefined;
  return { ok: true, value: { chatId: b.id, text, files, ...(agent !== undefined && { agent }) } };
}
