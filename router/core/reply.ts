/**
 * The reply model of CONTRACT section 9 as a pure function over a turn's events: which text extends the
 * answer, which is the status line, what the answer is at the end. Every face (JSON-RPC CLI printer, OpenAI
 * chat completions, the AI SDK UI stream, the chat page in the browser) renders with this one reader, so
 * one agent looks the same everywhere.
 *
 * No I/O and no runtime imports: the compiled file is served to the chat page as it is.
 */

/** A part as every internal message and artifact holds it (only text is read here). */
export interface ReplyPart {
  kind: string;
  text?: string;
}

/** The fields of a logged event the reader looks at (the engine's internal event shape). */
export type ReplyEvent =
  | {
      kind: "status";
      status: { state: string; message?: { parts: ReplyPart[] } };
      final?: boolean;
      metadata?: Record<string, unknown>;
    }
  | {
      kind: "artifact";
      artifact: { artifactId: string; name?: string; parts: ReplyPart[] };
      append?: boolean;
      lastChunk?: boolean;
      /** `textKind: "delta"` marks an artifact chunk that streams the answer itself (Eliza's model tokens). */
      metadata?: Record<string, unknown>;
    };

/** What a face should change on screen after one event. */
export type ReplyChange =
  /** Append `delta` to the visible answer. */
  | { type: "answer"; delta: string }
  /**
   * The answer is now `text` and does not extend what was shown (an agent that rewrote its answer, or whose
   * final message differs from the artifact text streamed before it). Faces that can replace do; see
   * docs/reply-model.md for the ones that cannot.
   */
  | { type: "answer-reset"; text: string }
  /** Replace the turn's one status line (progress, or a snapshot that is not yet the answer). */
  | { type: "status"; text: string; textKind: "progress" | "snapshot" }
  /** An artifact update; `answer` says whether its text was shown as part of the answer. */
  | { type: "artifact"; artifactId: string; name?: string; parts: ReplyPart[]; append: boolean; lastChunk: boolean; answer: boolean }
  /**
   * The turn ended in `state`; `answer` is its whole answer (section 9). A turn that ended without an answer
   * (`failed`, `rejected`, `canceled`) has `error`: its final message's text, or a sentence naming the state.
   * Its final message is then not shown as answer (no `answer`/`answer-reset` change precedes this one):
   * faces show the error apart and keep what was streamed.
   */
  | { type: "end"; state: string; answer: string; error?: string };

/** Reads one turn; feed it the turn's events in log order. */
export interface ReplyReader {
  feed(event: ReplyEvent): ReplyChange[];
  /** The answer as shown so far (the whole answer once the turn ended). */
  readonly answer: string;
  /** The current status line, if any. */
  readonly status: string | undefined;
  /** Whether a turn-ending event was read. */
  readonly ended: boolean;
}

const TURN_END = new Set(["completed", "canceled", "failed", "rejected", "input-required", "auth-required"]);
/** Turn-ending states that carry no answer: a face shows them as an error. */
export const FAILED_STATES: ReadonlySet<string> = new Set(["failed", "rejected", "canceled"]);

/**
 * Turn-ending states in which the task goes on with the user's next message (CONTRACT 14): the answer is the
 * agent's question, and a face's status line says what the task waits for in these words.
 */
export const WAITING_LABELS: Readonly<Record<string, string>> = { "input-required": "needs your input", "auth-required": "needs your authorization" };

/** The text of some parts, joined. */
export function partsText(parts: readonly ReplyPart[] | undefined): string {
  let out = "";
  for (const p of parts ?? []) if (p.kind === "text" && typeof p.text === "string") out += p.text;
  return out;
}

/**
 * An artifact's parts once an appended chunk (`append: true`) joins them: text that follows text continues it,
 * so a streamed artifact reads as one text; anything else is a part of its own. Every face that keeps
 * artifacts (the AI SDK face, the chat page) joins chunks this way.
 */
export function appendParts(before: readonly ReplyPart[], added: readonly ReplyPart[]): ReplyPart[] {
  const out = before.map((p) => ({ ...p }));
  for (const p of added) {
    const last = out[out.length - 1];
    if (p.kind === "text" && last?.kind === "text") last.text = (last.text ?? "") + (p.text ?? "");
    else out.push({ ...p });
  }
  return out;
}

function isTextOnly(parts: readonly ReplyPart[]): boolean {
  return parts.length > 0 && parts.every((p) => p.kind === "text");
}

/** A new reader for one turn. */
export function createReplyReader(): ReplyReader {
  let shown = "";
  let status: string | undefined;
  let ended = false;
  let sawDelta = false;
  // Text of the other artifacts, in arrival order: the answer when the final status has no text.
  const artifactText = new Map<string, string>();

  // A delta extends what is shown by construction: no comparison with the whole answer, which for a cons
  // string flattens it, once per delta (a turn of N deltas was O(N^2): 0.30-0.44x the JSON-RPC stream's
  // events/s through /api/chat at 10,000 deltas, docs/benchmarks.md, issue 33).
  const extend = (delta: string, out: ReplyChange[]): void => {
    if (delta === "") return;
    out.push({ type: "answer", delta });
    shown += delta;
  };

  const show = (text: string, out: ReplyChange[]): void => {
    if (text.startsWith(shown)) {
      if (text.length > shown.length) out.push({ type: "answer", delta: text.slice(shown.length) });
    } else {
      out.push({ type: "answer-reset", text });
    }
    shown = text;
  };

  const feedStatus = (event: Extract<ReplyEvent, { kind: "status" }>, out: ReplyChange[]): void => {
    const text = partsText(event.status.message?.parts);
    const final = event.final === true || TURN_END.has(event.status.state);
    if (final) {
      const state = event.status.state;
      // Section 9: the final text, else what streamed as the answer, else the artifacts' text.
      const answer = text || (sawDelta ? shown : "") || [...artifactText.values()].join("");
      ended = true;
      if (FAILED_STATES.has(state)) {
        out.push({ type: "end", state, answer, error: text || `the turn ended ${state}` });
        return;
      }
      show(answer, out);
      out.push({ type: "end", state, answer });
      return;
    }
    if (!text) return;
    const kind = event.metadata?.textKind;
    if (kind === "delta") {
      sawDelta = true;
      extend(text, out);
    } else {
      status = text;
      out.push({ type: "status", text, textKind: kind === "snapshot" ? "snapshot" : "progress" });
    }
  };

  const feedArtifact = (event: Extract<ReplyEvent, { kind: "artifact" }>, out: ReplyChange[]): void => {
    const { artifact } = event;
    const append = event.append === true;
    const textual = isTextOnly(artifact.parts);
    // Only a chunk its agent marked as the answer streams into it: any other artifact may turn out not to be
    // the answer (a final status with text), and an answer already streamed cannot be taken back everywhere.
    const answer = textual && event.metadata?.textKind === "delta";
    if (textual && !answer) {
      const before = artifactText.get(artifact.artifactId) ?? "";
      artifactText.set(artifact.artifactId, (append ? before : "") + partsText(artifact.parts));
    }
    out.push({
      type: "artifact",
      artifactId: artifact.artifactId,
      ...(artifact.name !== undefined && { name: artifact.name }),
      parts: artifact.parts,
      append,
      lastChunk: event.lastChunk !== false,
      answer,
    });
    if (answer) {
      sawDelta = true;
      extend(partsText(artifact.parts), out);
    }
  };

  return {
    feed(event) {
      const out: ReplyChange[] = [];
      if (ended) return out;
      if (event.kind === "status") feedStatus(event, out);
      else feedArtifact(event, out);
      return out;
    },
    get answer() {
      return shown;
    },
    get status() {
      return status;
    },
    get ended() {
      return ended;
    },
  };
}
