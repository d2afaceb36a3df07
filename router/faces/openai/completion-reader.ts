/**
 * A turn's events as OpenAI chat-completion deltas, pure (no I/O), over the shared turn reader
 * (faces/shared/turn-reader.ts, itself over the one reply reader): the answer goes to `content`, progress and
 * snapshots that are not the answer to `reasoning_content` (one line each), artifacts that are not the answer
 * to `reasoning_content` too. A non-stream reply always holds exactly the answer.
 *
 * The answer is never also reasoning (CONTRACT 14): an agent often says its answer in a working status or an
 * artifact before its final status says it again (echo does). So an event's reasoning is held until the next
 * event: dropped when that one ends the turn with an answer that holds it, sent before it otherwise.
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
  // Exactly what the stream sent as content.
  let content = "";
  // Whether the reasoning's last line is open, kept rather than read back: `reasoning.endsWith` flattens the
  // growing string once a line (a turn of N progress lines was O(N^2): 0.54x the JSON-RPC stream's events/s
  // at 10,000 lines, docs/benchmarks.md, issue 33).
  let lineOpen = false;
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
      const delta = fresh && lineOpen ? `\n${text}` : text;
      reasoning += delta;
      lineOpen = !delta.endsWith("\n");
      out.push({ reasoning_content: delta });
    }
    held = [];
  };

  const step = (s: TurnStep, out: CompletionDelta[]): void => {
    if (s.kind === "answer") {
      content += s.delta;
      out.push({ content: s.delta });
    }
    // A status line ends with its newline; an artifact's line stays open for its appended chunks.
    else if (s.kind === "note") addReasoning(s.from === "status" ? `${s.text}\n` : s.text, true, s.said);
    else addReasoning(s.text, false, s.text);
  };

  return {
    feed(event: ReplyEvent): CompletionStep {
      const { steps, end } = reader.feed(event);
      const deltas: CompletionDelta[] = [];
      const answer = end && end.error === undefined ? end.answer : undefined;
      release(deltas, answer);
      for (const s of steps) step(s, deltas);
      if (end) release(deltas, answer);
      return end ? { deltas, end } : { deltas };
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
