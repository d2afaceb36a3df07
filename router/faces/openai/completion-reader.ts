/**
 * A turn's events as OpenAI chat-completion deltas, pure (no I/O), over the shared reply reader:
 * the answer goes to `content`, progress and snapshots that are not the answer to `reasoning_content`
 * (one line each), artifacts that are not the answer to `reasoning_content` too.
 *
 * Only text known to be the answer streams as content (deltas; docs/reply-model.md). An answer the agent
 * rewrites (`answer-reset`: its final text does not extend the deltas it streamed) cannot be taken back on an OpenAI stream: the new answer follows in full after a blank line, so the last
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
  // Exactly what the stream sent as reasoning_content, so a non-stream reply reads the same.
  let reasoning = "";
  // Whether the reasoning's last line is open, kept rather than read back: `reasoning.endsWith` flattens the
  // growing string once a line (a turn of N progress lines was O(N^2): 0.54x the JSON-RPC stream's events/s
  // at 10,000 lines, docs/benchmarks.md, issue 33).
  let lineOpen = false;

  /** Appends to the reasoning; `fresh` starts a new line if the last one is still open. */
  const addReasoning = (text: string, fresh: boolean, out: CompletionDelta[]): void => {
    const delta = fresh && lineOpen ? `\n${text}` : text;
    reasoning += delta;
    lineOpen = !delta.endsWith("\n");
    out.push({ reasoning_content: delta });
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
        if (line !== "") addReasoning(`${line}\n`, true, out);
        return;
      }
      case "artifact": {
        if (change.answer) return;
        const text = partsLine(change.parts);
        if (text === "") return;
        // An appended chunk continues its line; a new artifact starts one (many agents never say lastChunk).
        addReasoning(change.append ? text : `${change.name ?? change.artifactId}: ${text}`, !change.append, out);
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
