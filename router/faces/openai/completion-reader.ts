/**
 * A turn's events as OpenAI chat-completion deltas, pure (no I/O), over the shared turn reader
 * (faces/shared/turn-reader.ts, itself over the one reply reader): the answer goes to `content`, progress and
 * snapshots that are not the answer to `reasoning_content` (one line each), artifacts that are not the answer
 * to `reasoning_content` too. A non-stream reply always holds exactly the answer.
 */
import type { ReplyEvent } from "../../core/reply.js";
import { createTurnReader, type TurnEnd, type TurnStep } from "../shared/turn-reader.js";

/** One `choices[0].delta`. */
export interface CompletionDelta {
  content?: string;
  reasoning_content?: string;
}

/** What one event becomes: deltas to send, and the turn's end when it ended (`error`: it ended without an answer). */
export interface CompletionStep {
  deltas: CompletionDelta[];
  end?: TurnEnd;
}

/** A reader for one turn. */
export function createCompletionReader() {
  const reader = createTurnReader();
  // Exactly what the stream sent as reasoning_content, so a non-stream reply reads the same.
  let reasoning = "";

  /** Appends to the reasoning; `fresh` starts a new line if the last one is still open. */
  const addReasoning = (text: string, fresh: boolean, out: CompletionDelta[]): void => {
    const delta = fresh && reasoning !== "" && !reasoning.endsWith("\n") ? `\n${text}` : text;
    reasoning += delta;
    out.push({ reasoning_content: delta });
  };

  const step = (s: TurnStep, out: CompletionDelta[]): void => {
    if (s.kind === "answer") out.push({ content: s.delta });
    // A status line ends with its newline; an artifact's line stays open for its appended chunks.
    else if (s.kind === "note") addReasoning(s.from === "status" ? `${s.text}\n` : s.text, true, out);
    else addReasoning(s.text, false, out);
  };

  return {
    feed(event: ReplyEvent): CompletionStep {
      const { steps, end } = reader.feed(event);
      const deltas: CompletionDelta[] = [];
      for (const s of steps) step(s, deltas);
      return end ? { deltas, end } : { deltas };
    },
    /** The status lines and non-answer artifacts of the turn so far, one per line. */
    get reasoning(): string {
      return reasoning.replace(/\n+$/, "");
    },
  };
}
