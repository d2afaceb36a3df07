/**
 * The text a user sees for one turn, and how the two kinds of incoming text change it (docs/eliza.md,
 * "What a client sees"):
 * - model tokens APPEND (they extend the same answer);
 * - action callbacks REPLACE the callback segment by default (successive statuses: latest wins), or extend
 *   it with `merge: "append"`. The first callback of a turn snapshots the text so far as `preCallbackText`;
 *   from then on the visible reply is `preCallbackText + "\n\n" + segment` (just the segment when
 *   preCallbackText is empty).
 * Pure state, no I/O.
 */
import type { MergeMode } from "./types.js";

/** Between the pre-callback text and the callback segment. */
export const CALLBACK_SEPARATOR = "\n\n";

/** What one callback produced: the whole visible reply (a snapshot: clients replace, never concatenate). */
export interface CallbackSnapshot {
  fullText: string;
  merge: MergeMode;
}

export class VisibleReply {
  #tokens = "";
  #preCallbackText: string | undefined;
  #segment = "";
  #history: string[] = [];

  /** Appends streamed text. Before any callback it grows the reply; after one it extends the segment. */
  appendText(chunk: string): void {
    if (this.#preCallbackText === undefined) this.#tokens += chunk;
    else this.#segment += chunk;
  }

  /** Drops streamed text that has not been snapshotted (a model retry starts the reply over). */
  resetTokens(): void {
    if (this.#preCallbackText === undefined) this.#tokens = "";
  }

  /** Applies one action callback and returns the snapshot to send. */
  callback(text: string, merge: MergeMode = "replace"): CallbackSnapshot {
    if (this.#preCallbackText === undefined) this.#preCallbackText = this.#tokens;
    this.#segment = merge === "append" ? this.#segment + text : text;
    this.#history.push(text);
    return { fullText: this.text, merge };
  }

  /** The whole visible reply now. */
  get text(): string {
    if (this.#preCallbackText === undefined) return this.#tokens;
    return this.#preCallbackText === "" ? this.#segment : this.#preCallbackText + CALLBACK_SEPARATOR + this.#segment;
  }

  /** Text streamed before the first callback (the model's reply). */
  get replyText(): string {
    return this.#preCallbackText ?? this.#tokens;
  }

  /** The text callbacks left visible (the latest callback's, or the appended run), "" when none came. */
  get callbackText(): string {
    return this.#segment;
  }

  /** Every callback text, in order. */
  get actionCallbackHistory(): string[] {
    return [...this.#history];
  }

  get hasCallbacks(): boolean {
    return this.#preCallbackText !== undefined;
  }
}
