/**
 * The read path of a persisted conversation (`GET /api/conversations/{sessionId}/messages`, docs/contract.md
 * section 7): an assistant turn that carried action callbacks is shown as the status trail users saw live,
 * then its outcome.
 */
import type { MemoryRecord } from "../../router/core/store.js";

/** One entry of the reloaded transcript. */
export interface ConversationMessage {
  id: string;
  role: "user" | "assistant";
  text: string;
  /** ISO 8601. */
  createdAt: string;
  actionCallbackHistory?: string[];
}

/**
 * The read path: every history line except a trailing duplicate of the final text, joined by "\n",
 * then "\n\n" and the final text as the last paragraph.
 */
export function rebuildAssistantText(finalText: string, history: readonly string[] | undefined): string {
  if (!history || history.length === 0) return finalText;
  const lines = history[history.length - 1] === finalText ? history.slice(0, -1) : [...history];
  if (lines.length === 0) return finalText;
  return finalText === "" ? lines.join("\n") : `${lines.join("\n")}\n\n${finalText}`;
}

/** Stored memories (oldest first) to transcript entries; turns with nothing visible are left out. */
export function toTranscript(memories: readonly MemoryRecord[]): ConversationMessage[] {
  const out: ConversationMessage[] = [];
  for (const m of memories) {
    const text = typeof m.content.text === "string" ? m.content.text : "";
    const history = stringArray(m.content.actionCallbackHistory);
    const shown = m.role === "assistant" ? rebuildAssistantText(text, history) : text;
    if (shown === "" && !history) continue;
    const entry: ConversationMessage = {
      id: m.id,
      role: m.role,
      text: shown,
      createdAt: new Date(m.createdAt).toISOString(),
    };
    if (history) entry.actionCallbackHistory = history;
    out.push(entry);
  }
  return out;
}

function stringArray(value: unknown): string[] | undefined {
  return Array.isArray(value) && value.every((v) => typeof v === "string") && value.length > 0 ? value : undefined;
}
