/**
 * A turn's events as OpenAI chat-completion deltas, pure (no I/O), over the shared reply reader:
 * the answer goes to `content`, progress and snapshots that are not the answer to `reasoning_content`
 * (one line each), artifacts that are not the answer to `reasoning_content` too.
 *
 * Only text known to be the answer streams as content (deltas; docs/reply-model.md). An answer the agent
 * rewrites (`answer-reset`: its final text does not extend the deltas it streamed) cannot be taken back on an OpenAI stream: the new answer follows in full after a blank line, so the last
 * paragraph of the streamed content is the answer. A non-stream reply always holds exactly the answer.
 *
 * The answer is never also reasoning (CONTRACT 14): an agent often says its answer in a working status or an
 * artifact before its final status says it again (echo does). So an event's reasoning is held until the next
 * event: dropped when that one ends the turn with an answer that holds it, sent before it otherwise.
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
  // Exactly what the stream sent as reasoning_content, so a non-stream reply reads the same.
  let reasoning = "";
  // The last event's reasoning, not sent yet: it may turn out to be the answer. `said`: the agent's own text.
  let held: { text: string; fresh: boolean; said: string }[] = [];

  /** Holds a piece of reasoning; `fresh` starts a new line if the last one is still open. */
  const addReasoning = (text: string, fresh: boolean, said: string): void => {
    held.push({ text, fresh, said: said.trim() });
  };

  /** Sends the held reasoning, less what the turn's answer says (that was the answer, not reasoning). */
  const release = (out: CompletionDelta[], answer?: string): void => {
    for (const { text, fresh, said } of held) {
      if (said === "" || answer?.includes(said)) continue;
      const delta = fresh && reasoning !== "" && !reasoning.endsWith("\n") ? `\n${text}` : text;
      reasoning += delta;
      out.push({ reasoning_content: delta });
    }
    held = [];
  };

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
      case "status": {
        // A snapshot repeats the answer streamed so far (Eliza: the reply, then the callback): only what it
        // adds is a status line; the answer itself is already in content.
        const line = change.textKind === "snapshot" && change.text.startsWith(content) ? change.text.slice(content.length).replace(/^\n+/, "") : change.text;
        if (line !== "") addReasoning(`${line}\n`, true, line);
        return;
      }
      case "artifact": {
        if (change.answer) return;
        const text = partsLine(change.parts);
        if (text === "") return;
        // An appended chunk continues its line; a new artifact starts one (many agents never say lastChunk).
        addReasoning(change.append ? text : `${change.name ?? change.artifactId}: ${text}`, !change.append, text);
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
      const end = changes.find((c): c is Extract<ReplyChange, { type: "end" }> => c.type === "end");
      release(deltas, end && end.error === undefined ? end.answer : undefined);
      for (const change of changes) step(change, deltas);
      if (end) release(deltas, end.error === undefined ? end.answer : undefined);
      if (!end) return { deltas };
      return { deltas, end: { state: end.state, answer: end.answer, ...(end.error !== undefined && { error: end.error }) } };
    },
    /** What the stream sent as content so far (the answer, or more after an `answer-reset`). */
    get content(): string {
      return content;
    },
    /** The status lines and non-answer artifacts of the turn so far, one per line. */
    get reasoning(): string {
      return reasoning.replace(/\n+$/, "");
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
