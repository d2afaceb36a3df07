/**
 * What the OpenAI-shaped faces (Chat Completions, Responses) read from a turn, over the one reply reader
 * (router/core/reply.ts, docs/reply-model.md): the answer as deltas, and everything that is not the answer
 * (progress, snapshots beyond the answer, artifacts that are not the answer) as note lines. Pure, no I/O.
 *
 * Only text known to be the answer streams as answer (deltas). An answer the agent rewrites (`answer-reset`:
 * its final text does not extend the deltas it streamed) cannot be taken back on an OpenAI stream: the new
 * answer follows in full after a blank line, so the last paragraph of the streamed text is the answer. The
 * `end` step always holds exactly the answer.
 */
import { createReplyReader, type ReplyChange, type ReplyEvent, type ReplyPart } from "../../core/reply.js";

/** One thing to send: answer text, a new note line, or more of the last note line. */
export type TurnStep =
  | { kind: "answer"; delta: string }
  /**
   * A new line apart from the answer; `from` says whether a status or an artifact said it, `snapshot` that a
   * status gave it as the whole answer so far (it may turn out to be the answer itself).
   */
  | { kind: "note"; text: string; from: "status" | "artifact"; snapshot?: boolean; said: string }
  /** More of the last note line (an appended artifact chunk). */
  | { kind: "note-more"; text: string };
// `said` of a note: the agent's own text, without the artifact's name (what an answer may repeat).

/** How a turn ended: its state and whole answer; `error` when it ended without one (failed, rejected, canceled). */
export interface TurnEnd {
  state: string;
  answer: string;
  error?: string;
}

/** What one event becomes: steps to send, and the turn's end when it ended. */
export interface TurnRead {
  steps: TurnStep[];
  end?: TurnEnd;
}

/** A reader for one turn; feed it the turn's events in log order. */
export function createTurnReader() {
  const reader = createReplyReader();
  // Exactly what went out as answer, so a snapshot that repeats it adds only its own line.
  let streamed = "";

  const step = (change: ReplyChange, out: TurnStep[]): void => {
    switch (change.type) {
      case "answer":
        streamed += change.delta;
        out.push({ kind: "answer", delta: change.delta });
        return;
      case "answer-reset": {
        const delta = streamed === "" ? change.text : `\n\n${change.text}`;
        streamed += delta;
        out.push({ kind: "answer", delta });
        return;
      }
      case "status": {
        // A snapshot repeats the answer streamed so far (Eliza: the reply, then the callback): only what it
        // adds is a status line; the answer itself already went out.
        const line = change.textKind === "snapshot" && change.text.startsWith(streamed) ? change.text.slice(streamed.length).replace(/^\n+/, "") : change.text;
        if (line !== "") out.push({ kind: "note", text: line, said: line, from: "status", ...(change.textKind === "snapshot" && { snapshot: true }) });
        return;
      }
      case "artifact": {
        if (change.answer) return;
        const text = partsLine(change.parts);
        if (text === "") return;
        // An appended chunk continues its line; a new artifact starts one (many agents never say lastChunk).
        out.push(
          change.append ? { kind: "note-more", text } : { kind: "note", text: `${change.name ?? change.artifactId}: ${text}`, said: text, from: "artifact" },
        );
        return;
      }
      case "end":
        return;
    }
  };

  return {
    feed(event: ReplyEvent): TurnRead {
      const changes = reader.feed(event);
      const steps: TurnStep[] = [];
      for (const change of changes) step(change, steps);
      const end = changes.find((c): c is Extract<ReplyChange, { type: "end" }> => c.type === "end");
      if (!end) return { steps };
      return { steps, end: { state: end.state, answer: end.answer, ...(end.error !== undefined && { error: end.error }) } };
    },
    /** Whether the turn ended. */
    get ended(): boolean {
      return reader.ended;
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
