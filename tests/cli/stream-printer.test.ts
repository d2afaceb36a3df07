import { describe, expect, test } from "@jest/globals";
import { StreamPrinter } from "../../router/cli/stream-printer.js";
import type { ClientEvent } from "../../router/dialects/index.js";
import type { TaskState } from "../../router/core/model.js";
import { partFromV10 } from "../../router/dialects/index.js";

function output(isTTY: boolean, columns: number | undefined = 80) {
  const out = {
    text: "",
    isTTY,
    columns,
    write: (s: string) => {
      out.text += s;
      return true;
    },
  };
  return out;
}

type Kind = "delta" | "snapshot" | "progress";
const status = (text: string | undefined, kind: Kind | undefined, extra: { state?: TaskState; final?: boolean } = {}): ClientEvent => ({
  kind: "status",
  taskId: "t",
  status: { state: extra.state ?? "working", ...(text !== undefined && { message: { role: "agent", parts: [{ kind: "text", text }] } }) },
  final: extra.final ?? false,
  ...(kind && { metadata: { textKind: kind } }),
});
const done = (text?: string, state: TaskState = "completed") => status(text, text === undefined ? undefined : "snapshot", { state, final: true });
const artifact = (text: string, append: boolean, opts: { id?: string; name?: string; delta?: boolean } = {}): ClientEvent => ({
  kind: "artifact",
  taskId: "t",
  artifact: { artifactId: opts.id ?? "a", ...(opts.name && { name: opts.name }), parts: [{ kind: "text", text }] },
  append,
  lastChunk: true,
  ...(opts.delta && { metadata: { textKind: "delta" } }),
});

function print(events: ClientEvent[], isTTY = false, options: { resumed?: boolean } = {}) {
  const out = output(isTTY);
  const notes = output(false);
  const p = new StreamPrinter(out, notes, options);
  for (const e of events) p.event(e);
  p.finish();
  return { out: out.text, notes: notes.text };
}

describe("StreamPrinter (the reply model, CONTRACT 9)", () => {
  test("delta chunks append; a final snapshot repeating them prints nothing more", () => {
    expect(print([status("Hel", "delta"), status("lo", "delta"), done("Hello")])).toEqual({ out: "Hello\n", notes: "" });
  });

  test("resumed mid-answer (--last-event-id): the final answer ending with what was printed is not printed again", () => {
    const events = [status(", 7", "delta"), status(", 11", "delta"), done("2, 3, 5, 7, 11")];
    expect(print(events, false, { resumed: true })).toEqual({ out: ", 7, 11\n", notes: "" });
    // Not resumed, the same events are an agent that rewrote its answer: the whole answer follows.
    expect(print(events).out).toBe(", 7, 11\n2, 3, 5, 7, 11\n");
    // Resumed after every delta: the final answer is all there is to print.
    expect(print([done("2, 3")], false, { resumed: true })).toEqual({ out: "2, 3\n", notes: "" });
  });

  test("piped, progress goes to stderr, one a line, and the answer only to stdout", () => {
    // An @a2a-js/sdk agent behind the router, or straight: `working` messages are progress.
    const r = print([status("working on big", "progress"), status("BIG", "delta"), status("working on world", "progress"), status("WORLD", "delta"), done()]);
    expect(r).toEqual({ out: "BIGWORLD\n", notes: "working on big\nworking on world\n" });
  });

  test("a foreign agent's unlabelled working message is progress; its final text is the answer", () => {
    const r = print([status("working on: hi", undefined), artifact("H", false), artifact("I", true), done("done")]);
    expect(r).toEqual({ out: "done\n", notes: "working on: hi\nHI\n" });
  });

  test("artifacts are the answer when the final status has no text", () => {
    const r = print([status("working on: hi", undefined), artifact("H", false, { name: "shout" }), artifact("I", true, { name: "shout" }), done()]);
    expect(r).toEqual({ out: "HI\n", notes: "working on: hi\n" });
  });

  test("artifact chunks marked delta stream into the answer; a snapshot status shows only what is new on stderr", () => {
    // Eliza: tokens, then action callbacks (snapshots of the whole reply), then the final answer.
    const reply = "Sure! Let me play that.";
    const r = print([
      artifact("Sure! ", false, { delta: true, name: "reply" }),
      artifact("Let me play that.", true, { delta: true, name: "reply" }),
      status(`${reply}\n\n🔍 Looking up track...`, "snapshot"),
      status(`${reply}\n\n✨ Setting up playback...`, "snapshot"),
      status(`${reply}\n\nNow playing: **Track**`, "snapshot"),
      done(`${reply}\n\nNow playing: **Track**`),
    ]);
    expect(r).toEqual({
      out: `${reply}\n\nNow playing: **Track**\n`,
      notes: "🔍 Looking up track...\n✨ Setting up playback...\nNow playing: **Track**\n",
    });
  });

  test("piped, a final answer that does not extend the printed one starts on a new line from the changed line", () => {
    const r = print([status("Report\nprogress 10%", "delta"), done("Report\nall done")]);
    expect(r.out).toBe("Report\nprogress 10%\nall done\n");
  });

  test("a failed or canceled final message is not printed as the answer", () => {
    expect(print([status("partial", "delta"), done("the tool broke", "failed")]).out).toBe("partial\n");
  });

  test("files and data parts are described on stderr", () => {
    const file: ClientEvent = {
      kind: "artifact",
      artifact: { artifactId: "f", name: "report", parts: [{ kind: "file", file: { name: "r.pdf", mimeType: "application/pdf", bytes: "AAAA" } }] },
      append: false,
      lastChunk: true,
    };
    expect(print([file, done("here it is")])).toEqual({ out: "here it is\n", notes: "report: [file r.pdf application/pdf, 3 bytes]\n" });
    // A v1.0 agent's list arrives wrapped by the dialect (partFromV10): shown as the agent sent it.
    const data: ClientEvent = {
      kind: "artifact",
      artifact: {
        artifactId: "d",
        name: "rows",
        parts: [{ kind: "data", data: { n: 1 } }, partFromV10({ data: [1, 2] })],
      },
      append: false,
      lastChunk: true,
    };
    expect(print([data, done("ok")]).notes).toBe('rows: [data {"n":1}]\nrows: [data [1,2]]\n');
  });

  test("on a terminal, the status line is drawn under the answer and goes at the end", () => {
    const r = print([status("thinking...", "progress"), status("HI", "delta"), done("HI")], true);
    // "thinking..." drawn; the delta rewrites the block as "HI\nthinking..."; the end leaves "HI".
    expect(r.out).toBe("thinking...\u001b[1G\u001b[0JHI\nthinking...\u001b[1A\u001b[1G\u001b[0JHI\n");
    expect(r.notes).toBe("");
  });

  test("on a terminal, a rewritten answer replaces the shown lines", () => {
    const r = print([status("line one\nline two", "delta"), done("replaced")], true);
    expect(r.out).toBe("line one\nline two\u001b[1A\u001b[1G\u001b[0Jreplaced\n");
  });

  test.each([0, undefined])("on a terminal reporting %p columns, the rewrite assumes 80 columns", (columns) => {
    const out = output(true, columns);
    const p = new StreamPrinter(out);
    // 100 characters: two rows at 80 columns (one row up), not 100 rows at 1 column.
    p.event(status("x".repeat(100), "delta"));
    p.event(done("replaced"));
    p.finish();
    expect(out.text).toBe(`${"x".repeat(100)}\u001b[1A\u001b[1G\u001b[0Jreplaced\n`);
  });
});
