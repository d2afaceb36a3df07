import readline from "node:readline";
import { partsText, type V01Event } from "./wire.js";

/** Where the printer writes: a stream, with `isTTY`/`columns` when it is a terminal. */
export interface PrinterOutput {
  write(text: string): unknown;
  isTTY?: boolean;
  columns?: number;
}

/** The width assumed when the terminal does not report one (or reports 0). */
const DEFAULT_COLUMNS = 80;

/** Final states whose message is an error or a notice, not an answer: it goes to stderr, not stdout. */
const NOTICE_STATES: ReadonlySet<string> = new Set(["failed", "rejected", "canceled"]);

/**
 * Prints a task stream as text. Appends (streamed chunks, `append: true` artifact chunks) are written
 * as they come. Snapshots (a status carrying `metadata.fullText` or `merge: "replace"`, and the final
 * status, which usually repeats the whole answer) replace what is shown.
 *
 * On a terminal the shown block is rewritten. Elsewhere (a pipe, a file) nothing can be taken back, so
 * the output reads as a log: a snapshot that extends the shown text writes only the rest; one that
 * changes it writes, on a new line, the changed lines (those after the lines it shares with the shown
 * text); a final answer that was already printed is not printed again; and progress-only statuses
 * (`metadata.progress: true`, e.g. the SDK's `ctx.status`) go to `notes` (stderr), one a line, instead
 * of being glued onto the answer.
 */
export class StreamPrinter {
  readonly #out: PrinterOutput;
  readonly #notes: PrinterOutput | undefined;
  /** The text the task shows now: what a terminal displays, and what snapshots are compared with. */
  #shown = "";
  /** Everything written to `out` (off a terminal it differs from `#shown` once a snapshot changed it). */
  #printed = "";

  /** `notes` receives progress-only statuses when `out` is not a terminal (dropped when absent). */
  constructor(out: PrinterOutput, notes?: PrinterOutput) {
    this.#out = out;
    this.#notes = notes;
  }

  event(event: V01Event): void {
    if (event.artifact) {
      const text = partsText(event.artifact.parts);
      if (text === "") return;
      if (event.artifact.append) this.#append(text);
      else this.#append(this.#lineOpen() ? `\n${text}` : text);
      return;
    }
    const status = event.status;
    if (!status?.message) return;
    if (event.final && NOTICE_STATES.has(status.state)) return;
    const text = partsText(status.message.parts);
    if (text === "") return;
    const meta = event.metadata ?? {};
    if (meta.progress === true && !event.final && !this.#out.isTTY) {
      this.#notes?.write(text.endsWith("\n") ? text : `${text}\n`);
      return;
    }
    const snapshot = event.final === true || typeof meta.fullText === "string" || meta.merge === "replace";
    if (snapshot) this.#snapshot(text, event.final === true);
    else this.#append(text);
  }

  /** Ends the printed block with a newline. */
  finish(): void {
    if (this.#lineOpen()) this.#out.write("\n");
    this.#shown = "";
    this.#printed = "";
  }

  #lineOpen(): boolean {
    return this.#printed !== "" && !this.#printed.endsWith("\n");
  }

  #write(text: string): void {
    if (text === "") return;
    this.#out.write(text);
    this.#printed += text;
  }

  #append(text: string): void {
    this.#write(text);
    this.#shown += text;
  }

  #snapshot(text: string, final: boolean): void {
    if (text === this.#shown) return;
    if (text.startsWith(this.#shown)) {
      this.#append(text.slice(this.#shown.length));
      return;
    }
    if (this.#out.isTTY) {
      this.#erase();
      this.#out.write(text);
      this.#printed = text;
    } else if (!(final && this.#printed.endsWith(text))) {
      const rest = text.slice(sharedLines(this.#shown, text));
      this.#write(this.#lineOpen() ? `\n${rest}` : rest);
    }
    this.#shown = text;
  }

  /** Moves the cursor to the start of the shown block and clears to the end of the screen. */
  #erase(): void {
    // Some terminals (and pseudo-terminals under CI or editors) report 0 columns: dividing by that would
    // count every line as dozens of rows and erase far above the shown block.
    const columns = this.#out.columns || DEFAULT_COLUMNS;
    const lines = this.#shown.split("\n");
    let rows = 0;
    for (const line of lines) rows += Math.max(1, Math.ceil(line.length / columns));
    const stream = this.#out as NodeJS.WritableStream;
    readline.moveCursor(stream, 0, -(rows - 1));
    readline.cursorTo(stream, 0);
    readline.clearScreenDown(stream);
  }
}

/** The length of the whole lines `next` starts with that `shown` starts with too. */
function sharedLines(shown: string, next: string): number {
  let same = 0;
  while (same < shown.length && same < next.length && shown[same] === next[same]) same++;
  return same === 0 ? 0 : next.lastIndexOf("\n", same - 1) + 1;
}
