/**
 * A turn's events as OpenAI chat-completion deltas, pure (no I/O), over the shared reply reader:
 * the answer goes to `content`, progress and snapshots that are not the answer to `reasoning_content`
 * (one line each), artifacts that are not the answer to `reasoning_content` too.
 *
 * An answer the agent rewrites (`answer-reset`: its final text does not extend what was streamed) cannot
 * be taken back on an OpenAI stream: the new answer follows in full after a blank line, so the last
 * paragraph of the streamed content is the answer. A non-stream reply always holds exactly the answer.
 */
import { createReplyReader, type ReplyChange, type ReplyEvent, type ReplyPart } from "../../core/reply.js";


/** One `choices[0].delta`. */
export interface CompletionDelta {
  content?: string;
  reasoning_content?: string;
}

/** What one event becomes: deltas to send, and the turn's end when it ended (`error`: it ended without an answer). */
export interface CompletionStep {
  deltas: CompletionDelta[];
  end?: { state: string; answer: string; error?: string };
}

/** A reader for one turn; `content` is what the stream sent as content so far. */
export function createCompletionReader() {
  const reader = createReplyReader();
  let content = "";
  const reasoning: string[] = [];

  const step = (change: ReplyChange, out: CompletionDelta[]): void => {
    switch (change.type) {
      case "answer":
        content += change.delta;
        out.push({ content: change.delta });
        return;
      case "answer-reset": {
        const delta = content === "" ? change.text : `\n\n${change.text}`;
        content += delta;
        out.push({ content: delta });
        return;
      }
      case "status":
        reasoning.push(change.text);
        out.push({ reasoning_content: `${change.text}\n` });
        return;
      case "artifact": {
        if (change.answer) return;
        const text = partsLine(change.parts);
        if (text === "") return;
        const line = change.append ? text : `${change.name ?? change.artifactId}: ${text}`;
        reasoning.push(line);
        out.push({ reasoning_content: change.lastChunk ? `${line}\n` : line });
        return;
      }
      case "end":
        return;
    }
  };

  return {
    feed(event: ReplyEvent): CompletionStep {
      const changes = reader.feed(event);
      const deltas: CompletionDelta[] = [];
      for (const change of changes) step(change, deltas);
      const end = changes.find((c): c is Extract<ReplyChange, { type: "end" }> => c.type === "end");
      if (!end) return { deltas };
      return { deltas, end: { state: end.state, answer: end.answer, ...(end.error !== undefined && { error: end.error }) } };
    },
    /** The status lines and non-answer artifacts of the turn so far, one per line. */
    get reasoning(): string {
      return reasoning.join("\n");
    },
  };
}

/** A readable line for an artifact's parts: text as is, data as JSON, files by name and link. */
export function partsLine(parts: readonly ReplyPart[]): string {
  return parts
    .map((p) => {
      const part = p as ReplyPart & { data?: unknown; file?: { name?: string; uri?: string; mimeType?: string } };
      if (part.kind === "text") return part.text ?? "";
      if (part.kind === "data") return JSON.stringify(part.data);
      if (part.kind === "file") return part.file?.uri ? `[${part.file.name ?? "file"}](${part.file.uri})` : `[${part.file?.name ?? "file"}]`;
      return "";
    })
    .join("");
}
