import readline from "node:readline";
import { createReplyReader, partsText, type ReplyChange, type ReplyReader } from "../core/reply.js";
import type { Part } from "../core/model.js";
import { type ClientEvent, dataValueOf } from "../dialects/index.js";

/** Where the printer writes: a stream, with `isTTY`/`columns` when it is a terminal. */
export interface PrinterOutput {
  write(text: string): unknown;
  isTTY?: boolean;
  columns?: number;
}

/** The width assumed when the terminal does not report one (or reports 0). */
const DEFAULT_COLUMNS = 80;

/** Final states whose message is an error or a notice, not an answer: reportOutcome says it on stderr. */
const NOTICE_STATES: ReadonlySet<string> = new Set(["failed", "rejected", "canceled"]);

/**
 * Prints a task stream as text with the reply model (CONTRACT 9, router/core/reply.ts): the reader says
 * what extends the answer and what is a status line; this class only decides where each goes.
 *
 * Off a terminal (a pipe, a file) stdout carries the answer only: deltas are appended as they come; an
 * answer that does not extend what was printed (the agent rewrote it) is printed on a new line from the
 * first line that changed; a final answer already printed is not printed again. Status lines (progress,
 * snapshots that are not yet the answer) go to `notes` (stderr), one a line, without the lines they
 * share with the answer already printed.
 *
 * On a terminal the block below the prompt shows the answer and, under it, the current status line,
 * rewritten in place; at the end the status line goes and the answer stays.
 *
 * Artifacts that are not the answer, and files and data in any artifact, are listed on `notes` once
 * the turn ends.
 */
export class StreamPrinter {
  readonly #out: PrinterOutput;
  readonly #notes: PrinterOutput | undefined;
  #reader: ReplyReader = createReplyReader();
  /** Everything written to `out` since the last finish (off a terminal). */
  #printed = "";
  /** The block a terminal shows now (on a terminal). */
  #drawn = "";
  #answer = "";
  #status: string | undefined;
  /** The last status line's whole text (off a terminal). */
  #lastStatus: string | undefined;
  /** Text of the artifacts that are not the answer, by id, and descriptions of non-text parts. */
  readonly #artifacts = new Map<string, { name?: string; text: string }>();
  readonly #described: string[] = [];

  /**
   * The stream was resumed mid-turn (`--last-event-id N`, N > 0): what is printed is the tail of an answer
   * begun before, so a final answer that ends with it was already seen and is not printed again.
   */
  #resumed: boolean;

  /** `notes` receives status lines and artifact notes (dropped when absent). */
  constructor(out: PrinterOutput, notes?: PrinterOutput, options: { resumed?: boolean } = {}) {
    this.#out = out;
    this.#notes = notes;
    this.#resumed = options.resumed === true;
  }

  event(event: ClientEvent): void {
    const final = event.kind === "status" && event.final;
    // A failed or canceled turn's message is a notice, not the answer: the command reports it on stderr.
    const feed = final && NOTICE_STATES.has(event.status.state) ? { ...event, status: { state: event.status.state } } : event;
    for (const change of this.#reader.feed(feed)) this.#apply(change, final);
  }

  /** Ends the printed block with a newline, then lists what was not the answer. */
  finish(): void {
    if (this.#out.isTTY) {
      this.#status = undefined;
      this.#draw();
      if (this.#drawn !== "" && !this.#drawn.endsWith("\n")) this.#out.write("\n");
    } else if (this.#printed !== "" && !this.#printed.endsWith("\n")) {
      this.#out.write("\n");
    }
    for (const { name, text } of this.#artifacts.values()) {
      if (text !== "" && !this.#answer.includes(text)) this.#note(`${name ? `${name}: ` : ""}${text}`);
    }
    for (const line of this.#described) this.#note(line);
    this.#reader = createReplyReader();
    this.#resumed = false;
    this.#printed = this.#drawn = this.#answer = "";
    this.#status = this.#lastStatus = undefined;
    this.#artifacts.clear();
    this.#described.length = 0;
  }

  #apply(change: ReplyChange, final: boolean): void {
    switch (change.type) {
      case "answer":
        this.#setAnswer(this.#answer + change.delta, final);
        break;
      case "answer-reset":
        this.#setAnswer(change.text, final);
        break;
      case "status":
        this.#setStatus(change.text);
        break;
      case "artifact":
        this.#artifact(change);
        break;
      case "end":
        this.#status = undefined;
        if (this.#out.isTTY) this.#draw();
        break;
    }
  }

  #setAnswer(text: string, final: boolean): void {
    const before = this.#answer;
    this.#answer = text;
    if (this.#out.isTTY) {
      this.#draw();
      return;
    }
    if (text.startsWith(before)) {
      this.#write(text.slice(before.length));
    } else if (!(final && (this.#printed.endsWith(text) || (this.#resumed && this.#printed !== "" && text.endsWith(this.#printed))))) {
      const rest = text.slice(sharedLines(before, text));
      this.#write(this.#lineOpen() ? `\n${rest}` : rest);
    }
  }

  #setStatus(text: string): void {
    this.#status = text;
    if (this.#out.isTTY) {
      this.#draw();
      return;
    }
    // A snapshot repeats the answer it builds on, or the line before it (Eliza: "reply\n\n🔍 Looking up..."):
    // a log shows only what is new.
    const rest = this.#answer !== "" && text.startsWith(this.#answer) ? text.slice(this.#answer.length) : text.slice(sharedLines(this.#lastStatus ?? "", text));
    const line = rest.replace(/^\n+/, "");
    if (line !== "" && text !== this.#lastStatus) this.#note(line);
    this.#lastStatus = text;
  }

  #artifact(change: Extract<ReplyChange, { type: "artifact" }>): void {
    for (const part of change.parts as Part[]) {
      const described = describePart(part);
      if (described) this.#described.push(`${change.name ? `${change.name}: ` : ""}${described}`);
    }
    if (change.answer) return;
    const text = partsText(change.parts);
    const before = this.#artifacts.get(change.artifactId)?.text ?? "";
    this.#artifacts.set(change.artifactId, { ...(change.name !== undefined && { name: change.name }), text: (change.append ? before : "") + text });
  }

  #note(line: string): void {
    this.#notes?.write(line.endsWith("\n") ? line : `${line}\n`);
  }

  #lineOpen(): boolean {
    return this.#printed !== "" && !this.#printed.endsWith("\n");
  }

  #write(text: string): void {
    if (text === "") return;
    this.#out.write(text);
    this.#printed += text;
  }

  /** Brings the terminal block to answer + status line, appending when it can, else rewriting. */
  #draw(): void {
    const sep = this.#answer !== "" && !this.#answer.endsWith("\n") ? "\n" : "";
    const block = this.#status === undefined ? this.#answer : `${this.#answer}${sep}${this.#status}`;
    if (block === this.#drawn) return;
    if (block.startsWith(this.#drawn)) {
      this.#out.write(block.slice(this.#drawn.length));
    } else {
      this.#erase();
      this.#out.write(block);
    }
    this.#drawn = block;
  }

  /** Moves the cursor to the start of the drawn block and clears to the end of the screen. */
  #erase(): void {
    // Some terminals (and pseudo-terminals under CI or editors) report 0 columns: dividing by that would
    // count every line as dozens of rows and erase far above the shown block.
    const columns = this.#out.columns || DEFAULT_COLUMNS;
    let rows = 0;
    for (const line of this.#drawn.split("\n")) rows += Math.max(1, Math.ceil(line.length / columns));
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

/** A one-line description of a non-text part (files and data are not dumped on a terminal). */
export function describePart(part: Part): string | undefined {
  if (part.kind === "file") {
    const f = part.file ?? {};
    const size = f.bytes ? `, ${Math.floor((f.bytes.length * 3) / 4)} bytes` : "";
    return `[file ${f.name ?? f.uri ?? "(unnamed)"}${f.mimeType ? ` ${f.mimeType}` : ""}${size}]`;
  }
  // A non-object value (a v1.0 agent's string or list) arrives wrapped by the dialect: shown as sent.
  if (part.kind === "data") return `[data ${JSON.stringify(dataValueOf(part).value)}]`;
  return undefined;
}
