import { describe, expect, test } from "@jest/globals";
import { createReplyReader, type ReplyChange, type ReplyEvent } from "../../router/core/reply.js";

const status = (state: string, text: string | undefined, textKind?: string, final?: boolean): ReplyEvent => ({
  kind: "status",
  status: { state, ...(text !== undefined && { message: { parts: [{ kind: "text", text }] } }) },
  ...(final !== undefined && { final }),
  ...(textKind !== undefined && { metadata: { textKind } }),
});
const chunk = (artifactId: string, text: string, append: boolean, textKind?: string): ReplyEvent => ({
  kind: "artifact",
  artifact: { artifactId, parts: [{ kind: "text", text }] },
  append,
  lastChunk: false,
  ...(textKind !== undefined && { metadata: { textKind } }),
});

/** Feeds a whole turn and returns every change, in order. */
function read(events: ReplyEvent[]) {
  const reader = createReplyReader();
  const changes: ReplyChange[] = events.flatMap((e) => reader.feed(e));
  return { reader, changes };
}

/** What a face that appends answer deltas shows at the end. */
function appended(changes: ReplyChange[]): string {
  let out = "";
  for (const c of changes) {
    if (c.type === "answer") out += c.delta;
    if (c.type === "answer-reset") out = c.text;
  }
  return out;
}

describe("reply model (CONTRACT 9)", () => {
  test("delta chunks build the answer; a final snapshot equal to them adds nothing", () => {
    const { reader, changes } = read([status("working", "HEL", "delta"), status("working", "LO", "delta"), status("completed", "HELLO", "snapshot", true)]);
    expect(changes.filter((c) => c.type === "answer")).toEqual([
      { type: "answer", delta: "HEL" },
      { type: "answer", delta: "LO" },
    ]);
    expect(changes.at(-1)).toEqual({ type: "end", state: "completed", answer: "HELLO" });
    expect(reader.answer).toBe("HELLO");
    expect(reader.ended).toBe(true);
  });

  test("progress is a status line, replaced by the next one, never part of the answer", () => {
    const { reader, changes } = read([
      status("working", "working on big", "progress"),
      status("working", "BIG", "delta"),
      status("working", "working on world", "progress"),
      status("working", "WORLD", "delta"),
      status("completed", undefined, undefined, true),
    ]);
    expect(changes.filter((c) => c.type === "status").map((c) => (c as { text: string }).text)).toEqual(["working on big", "working on world"]);
    expect(appended(changes)).toBe("BIGWORLD");
    expect(reader.answer).toBe("BIGWORLD");
    expect(reader.status).toBe("working on world");
  });

  test("snapshots before the end go to the status line; the final text is the answer", () => {
    const { changes } = read([
      chunk("reply", "Sure, ", false, "delta"),
      chunk("reply", "playing.", true, "delta"),
      status("working", "Sure, playing.\n\nNow playing: jazz", "snapshot"),
      status("completed", "Sure, playing.\n\nNow playing: jazz", "snapshot", true),
    ]);
    expect(changes.filter((c) => c.type === "status")).toEqual([{ type: "status", text: "Sure, playing.\n\nNow playing: jazz", textKind: "snapshot" }]);
    // Streamed tokens were a prefix of the answer: the end only appends the rest.
    expect(changes.filter((c) => c.type === "answer").map((c) => (c as { delta: string }).delta)).toEqual(["Sure, ", "playing.", "\n\nNow playing: jazz"]);
    expect(appended(changes)).toBe("Sure, playing.\n\nNow playing: jazz");
  });

  test("with no final text the answer is the turn's text artifacts, shown once the turn ends", () => {
    const { changes } = read([chunk("a", "one ", false), chunk("a", "two", true), status("completed", undefined, undefined, true)]);
    expect(changes.filter((c) => c.type === "artifact").map((c) => (c as { answer: boolean }).answer)).toEqual([false, false]);
    expect(changes.filter((c) => c.type === "answer")).toEqual([{ type: "answer", delta: "one two" }]);
    expect(changes.at(-1)).toEqual({ type: "end", state: "completed", answer: "one two" });
  });

  test("artifacts are not streamed into the answer when the final status has text (an @a2a-js agent's 'done')", () => {
    const { changes } = read([
      status("working", "working on: hello", "progress"),
      chunk("shout", "HEL", false),
      chunk("shout", "LO", true),
      status("completed", "done", "snapshot", true),
    ]);
    expect(changes.some((c) => c.type === "answer-reset")).toBe(false);
    expect(changes.filter((c) => c.type === "answer")).toEqual([{ type: "answer", delta: "done" }]);
  });

  test("a final text that does not extend what was streamed resets the answer", () => {
    const { changes } = read([status("working", "draft", "delta"), status("completed", "Final.", "snapshot", true)]);
    expect(changes).toContainEqual({ type: "answer-reset", text: "Final." });
    expect(appended(changes)).toBe("Final.");
  });

  test("artifacts with data or files are never the answer", () => {
    const { changes } = read([{ kind: "artifact", artifact: { artifactId: "d", parts: [{ kind: "data" }] } }, status("completed", "ok", "snapshot", true)]);
    expect(changes[0]).toMatchObject({ type: "artifact", artifactId: "d", answer: false });
    expect(appended(changes)).toBe("ok");
  });

  test("text artifacts after delta statuses are not mixed into the answer", () => {
    const { changes } = read([status("working", "hi", "delta"), chunk("x", "side", false), status("completed", "hi", "snapshot", true)]);
    expect(changes.find((c) => c.type === "artifact")).toMatchObject({ answer: false });
    expect(appended(changes)).toBe("hi");
  });

  test("a turn waiting for input ends it too; nothing after the end changes anything", () => {
    const reader = createReplyReader();
    expect(reader.feed(status("input-required", "Which city?", "snapshot", true))).toEqual([
      { type: "answer", delta: "Which city?" },
      { type: "end", state: "input-required", answer: "Which city?" },
    ]);
    expect(reader.feed(status("working", "late", "delta"))).toEqual([]);
  });

  test("a status with no textKind is read as progress (the A2A way)", () => {
    const { changes } = read([status("working", "thinking"), status("completed", "done", undefined, true)]);
    expect(changes[0]).toEqual({ type: "status", text: "thinking", textKind: "progress" });
    expect(appended(changes)).toBe("done");
  });
});
