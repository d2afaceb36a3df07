/** The pure reply reader (router/core/reply.ts): CONTRACT section 9 as every face renders it. */
import { describe, expect, test } from "@jest/globals";
import { createReplyReader, type ReplyEvent } from "../../router/core/reply.js";

const msg = (text: string) => ({ parts: [{ kind: "text", text }] });
const status = (state: string, text?: string, textKind?: string, final = false): ReplyEvent => ({
  kind: "status",
  status: { state, ...(text !== undefined && { message: msg(text) }) },
  final,
  ...(textKind && { metadata: { textKind } }),
});
const artifact = (artifactId: string, text: string, append = false): ReplyEvent => ({
  kind: "artifact",
  artifact: { artifactId, parts: [{ kind: "text", text }] },
  append,
});

describe("createReplyReader", () => {
  test("deltas extend the answer; progress and snapshots are the status line; the final text ends it", () => {
    const r = createReplyReader();
    expect(r.feed(status("working", "thinking", "progress"))).toEqual([{ type: "status", text: "thinking", textKind: "progress" }]);
    expect(r.feed(status("working", "Hel", "delta"))).toEqual([{ type: "answer", delta: "Hel" }]);
    expect(r.feed(status("working", "Hello", "snapshot"))).toEqual([{ type: "status", text: "Hello", textKind: "snapshot" }]);
    expect(r.feed(status("completed", "Hello!", "snapshot", true))).toEqual([
      { type: "answer", delta: "lo!" },
      { type: "end", state: "completed", answer: "Hello!" },
    ]);
    expect(r.answer).toBe("Hello!");
    expect(r.ended).toBe(true);
    expect(r.feed(status("working", "late", "delta"))).toEqual([]);
  });

  test("text artifacts are the answer when the final status has no text; a final text wins over them", () => {
    const a = createReplyReader();
    a.feed(artifact("r", "Hi "));
    a.feed(artifact("r", "there", true));
    expect(a.feed(status("completed", undefined, undefined, true))).toEqual([
      { type: "answer", delta: "Hi there" },
      { type: "end", state: "completed", answer: "Hi there" },
    ]);
    const b = createReplyReader();
    b.feed(artifact("r", "HELLO"));
    expect(b.feed(status("completed", "done", undefined, true))).toEqual([
      { type: "answer", delta: "done" },
      { type: "end", state: "completed", answer: "done" },
    ]);
  });

  test("a turn that ends without an answer names its error and leaves the streamed answer alone", () => {
    for (const state of ["failed", "rejected", "canceled"]) {
      const r = createReplyReader();
      r.feed(status("working", "part", "delta"));
      expect(r.feed(status(state, "it broke", undefined, true))).toEqual([{ type: "end", state, answer: "it broke", error: "it broke" }]);
      expect(r.answer).toBe("part");
    }
    const silent = createReplyReader();
    expect(silent.feed(status("canceled", undefined, undefined, true))).toEqual([
      { type: "end", state: "canceled", answer: "", error: "the turn ended canceled" },
    ]);
  });
});
