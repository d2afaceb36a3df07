import { describe, expect, test } from "@jest/globals";
import { StreamPrinter } from "../../router/cli/stream-printer.js";
import type { V01Event } from "../../router/cli/wire.js";

function output(isTTY: boolean, columns: number | undefined = 80) {
  const out = { text: "", isTTY, columns, write: (s: string) => ((out.text += s), true) };
  return out;
}

const status = (text: string, extra: Partial<V01Event> & { state?: string } = {}): V01Event => ({
  id: "t",
  status: { state: extra.state ?? "working", message: { role: "agent", parts: [{ type: "text", text }] } },
  final: extra.final ?? false,
  ...(extra.metadata && { metadata: extra.metadata }),
});
const artifact = (text: string, append: boolean): V01Event => ({ id: "t", artifact: { parts: [{ type: "text", text }], append } });

describe("StreamPrinter", () => {
  test("streamed chunks append; a final status repeating them prints nothing more", () => {
    const out = output(false);
    const p = new StreamPrinter(out);
    for (const e of [status("Hel"), status("lo"), status("Hello", { final: true, state: "completed" })]) p.event(e);
    p.finish();
    expect(out.text).toBe("Hello\n");
  });

  test("a non-streaming agent's working message then its completion prints once", () => {
    const out = output(false);
    const p = new StreamPrinter(out);
    p.event(status("all at once"));
    p.event(status("all at once", { final: true, state: "completed" }));
    p.finish();
    expect(out.text).toBe("all at once\n");
  });

  test("artifact appends append; a snapshot extending the text writes only the rest", () => {
    const out = output(false);
    const p = new StreamPrinter(out);
    p.event(artifact("Hi", false));
    p.event(artifact(" there", true));
    p.event(status("Hi there\n\nDone: 3 results", { metadata: { fullText: "Hi there\n\nDone: 3 results", merge: "replace" } }));
    p.finish();
    expect(out.text).toBe("Hi there\n\nDone: 3 results\n");
  });

  test("off a terminal, a snapshot that replaces the text starts a new line", () => {
    const out = output(false);
    const p = new StreamPrinter(out);
    p.event(status("searching…", { metadata: { merge: "replace", fullText: "searching…" } }));
    p.event(status("found it", { metadata: { merge: "replace", fullText: "found it" } }));
    p.finish();
    expect(out.text).toBe("searching…\nfound it\n");
  });

  test("on a terminal, a snapshot that replaces the text rewrites the shown lines", () => {
    const out = output(true);
    const p = new StreamPrinter(out);
    p.event(status("line one\nline two", { metadata: { merge: "replace" } }));
    p.event(status("replaced", { metadata: { merge: "replace" } }));
    p.finish();
    // Up one row, to column 0, clear to the end of the screen, then the new text.
    expect(out.text).toBe("line one\nline two\u001b[1A\u001b[1G\u001b[0Jreplaced\n");
  });

  test.each([0, undefined])("on a terminal reporting %p columns, the rewrite assumes 80 columns", (columns) => {
    const out = output(true, columns);
    const p = new StreamPrinter(out);
    // 100 characters: two rows at 80 columns (one row up), not 100 rows at 1 column.
    p.event(status("x".repeat(100), { metadata: { merge: "replace" } }));
    p.event(status("replaced", { metadata: { merge: "replace" } }));
    p.finish();
    expect(out.text).toBe(`${"x".repeat(100)}\u001b[1A\u001b[1G\u001b[0Jreplaced\n`);
  });

  test("a failed or canceled final message is not printed as the answer", () => {
    const out = output(false);
    const p = new StreamPrinter(out);
    p.event(status("partial"));
    p.event(status("the tool broke", { final: true, state: "failed" }));
    p.finish();
    expect(out.text).toBe("partial\n");
  });

  test("off a terminal, a snapshot that changes the text prints only the changed lines on a new line", () => {
    // Eliza: token appends, then action callbacks as replace snapshots, then the final answer.
    const out = output(false);
    const p = new StreamPrinter(out);
    const replace = (text: string) => status(text, { metadata: { fullText: text, merge: "replace" } });
    p.event(artifact("Sure! ", false));
    p.event(artifact("Let me play that.", true));
    p.event(replace("Sure! Let me play that.\n\n🔍 Looking up track..."));
    p.event(replace("Sure! Let me play that.\n\n🔍 Searching for track..."));
    p.event(replace("Sure! Let me play that.\n\n✨ Setting up playback..."));
    p.event(replace("Sure! Let me play that.\n\nNow playing: **Track**"));
    p.event(status("Sure! Let me play that.\n\nNow playing: **Track**", { final: true, state: "completed" }));
    p.finish();
    expect(out.text).toBe(
      "Sure! Let me play that.\n\n🔍 Looking up track...\n🔍 Searching for track...\n✨ Setting up playback...\nNow playing: **Track**\n",
    );
  });

  test("off a terminal, a snapshot that changes the last line mid-way reprints that line only", () => {
    const out = output(false);
    const p = new StreamPrinter(out);
    p.event(status("Report\nprogress 10%", { metadata: { merge: "replace" } }));
    p.event(status("Report\nprogress 20%", { metadata: { merge: "replace" } }));
    p.event(status("Report\n", { metadata: { merge: "replace" } }));
    p.event(status("done"));
    p.finish();
    expect(out.text).toBe("Report\nprogress 10%\nprogress 20%\ndone\n");
  });

  test("off a terminal, progress statuses go to the notes, one a line; the answer is printed once", () => {
    const out = output(false);
    const notes = output(false);
    const p = new StreamPrinter(out, notes);
    p.event(status("thinking...", { metadata: { progress: true } }));
    p.event(status("HI YOU"));
    p.event(status("still thinking", { metadata: { progress: true } }));
    p.event(status("HI YOU", { final: true, state: "completed" }));
    p.finish();
    expect(out.text).toBe("HI YOU\n");
    expect(notes.text).toBe("thinking...\nstill thinking\n");
  });

  test("off a terminal, a final answer already printed at the end is not printed again", () => {
    // An agent that does not mark its progress: it is glued on, but the answer is not repeated.
    const out = output(false);
    const p = new StreamPrinter(out);
    p.event(status("thinking..."));
    p.event(status("HI YOU"));
    p.event(status("HI YOU", { final: true, state: "completed" }));
    p.finish();
    expect(out.text).toBe("thinking...HI YOU\n");
  });

  test("off a terminal, a final answer that differs is printed on its own line", () => {
    const out = output(false);
    const p = new StreamPrinter(out);
    p.event(status("draft"));
    p.event(status("the answer", { final: true, state: "completed" }));
    p.finish();
    expect(out.text).toBe("draft\nthe answer\n");
  });

  test("on a terminal, progress is shown in the block and the final answer replaces it", () => {
    const out = output(true);
    const notes = output(false);
    const p = new StreamPrinter(out, notes);
    p.event(status("thinking...", { metadata: { progress: true } }));
    p.event(status("HI YOU"));
    p.event(status("HI YOU", { final: true, state: "completed" }));
    p.finish();
    expect(out.text).toBe("thinking...HI YOU\u001b[1G\u001b[0JHI YOU\n");
    expect(notes.text).toBe("");
  });
});
