/** The faces' pure parts, in memory: events -> OpenAI deltas, events -> UI parts, and the error tables. */
import { describe, expect, test } from "@jest/globals";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { TASK_ERROR_REASONS } from "../../router/core/errors.js";
import type { LoggedEvent, Part } from "../../router/core/model.js";
import { createUiChunkReader, REASON_STATUS } from "../../router/faces/ai-sdk/index.js";
import { createCompletionReader, REASON_ERRORS, TURN_ERRORS } from "../../router/faces/openai/index.js";
import { ROOT } from "../helpers/spawn-router.js";

let seq = 0;
const at = { taskId: "t1", contextId: "c1" };
function status(state: string, text: string | undefined, textKind?: string, final = false): LoggedEvent {
  return {
    ...at,
    seq: ++seq,
    kind: "status",
    final,
    status: { state: state as "working", ...(text !== undefined && { message: { role: "agent", parts: [{ kind: "text", text }] } }) },
    ...(textKind && { metadata: { textKind } }),
  };
}
function artifact(id: string, parts: Part[], append = false, lastChunk = true): LoggedEvent {
  return { ...at, seq: ++seq, kind: "artifact", artifact: { artifactId: id, name: id, parts }, append, lastChunk };
}
const text = (t: string) => [{ kind: "text" as const, text: t }];

describe("OpenAI deltas", () => {
  test("deltas are content, progress and snapshots are reasoning lines, the end is stop", () => {
    const r = createCompletionReader();
    const out = [
      status("working", "thinking", "progress"),
      status("working", "Hel", "delta"),
      status("working", "lo", "delta"),
      artifact("chart", [{ kind: "data", data: { x: 1 } }]),
      status("completed", "Hello", "snapshot", true),
    ].map((e) => r.feed(e));
    const deltas = out.flatMap((s) => s.deltas);
    expect(deltas.map((d) => d.content ?? "").join("")).toBe("Hello");
    expect(deltas.filter((d) => d.reasoning_content).map((d) => d.reasoning_content)).toEqual(["thinking\n", 'chart: {"x":1}']);
    expect(out.at(-1)!.end).toEqual({ state: "completed", answer: "Hello" });
  });

  test("an answer the agent rewrites follows after a blank line; artifacts are not content; a failure is not content", () => {
    const r = createCompletionReader();
    const a = r.feed(artifact("shout", text("HELLO")));
    const b = r.feed(status("completed", "done", undefined, true));
    expect([...a.deltas, ...b.deltas].map((d) => d.content ?? "").join("")).toBe("done");
    expect(r.reasoning).toBe("shout: HELLO");
    const w = createCompletionReader();
    const c = w.feed(status("working", "draft", "delta"));
    const d = w.feed(status("completed", "Final.", "snapshot", true));
    expect([...c.deltas, ...d.deltas].map((x) => x.content ?? "").join("")).toBe("draft\n\nFinal.");
    const f = createCompletionReader();
    f.feed(status("working", "partial", "delta"));
    const failed = f.feed(status("failed", "boom", undefined, true));
    expect(failed.deltas).toEqual([]);
    expect(failed.end).toEqual({ state: "failed", answer: "boom", error: "boom" });
  });
});

describe("UI parts", () => {
  test("one status id per task, text parts for the answer, artifacts apart, finish", () => {
    const r = createUiChunkReader({ taskId: "t1", contextId: "c1", agentId: "a", fromSeq: 0 });
    const chunks = [
      ...r.start(),
      ...[
        status("working", "step 1", "progress"),
        status("working", "step 2", "progress"),
        artifact("file", [{ kind: "file", file: { uri: "http://x/y", name: "y" } }]),
        status("working", "Hi", "delta"),
        status("completed", "Hi", "snapshot", true),
      ].flatMap((e) => r.feed(e)),
    ];
    const ids = new Set(chunks.filter((c) => c.type === "data-status").map((c) => c.id));
    expect([...ids]).toEqual(["status-t1"]);
    expect(chunks.filter((c) => c.type === "text-delta").map((c) => c.delta)).toEqual(["Hi"]);
    expect(chunks.filter((c) => c.type === "data-artifact")).toHaveLength(1);
    expect(chunks.map((c) => c.type).slice(-3)).toEqual(["text-end", "data-status", "finish"]);
  });

  test("an artifact streamed in appended chunks is one data part whose text joins them; other parts stay apart", () => {
    const r = createUiChunkReader({ taskId: "t1", contextId: "c1", agentId: "a", fromSeq: 0 });
    const chunks = [
      artifact("log", text("line 1, "), false, false),
      artifact("log", [...text("line 2"), { kind: "data", data: { n: 2 } }], true, false),
      artifact("log", text("; line 3"), true, true),
      status("completed", "done", undefined, true),
    ].flatMap((e) => r.feed(e));
    const log = chunks.flatMap((c) => (c.type === "data-artifact" ? [(c.data as { parts: Part[] }).parts] : []));
    expect(log.at(-1)).toEqual([
      { kind: "text", text: "line 1, line 2" },
      { kind: "data", data: { n: 2 } },
      { kind: "text", text: "; line 3" },
    ]);
    expect(new Set(chunks.filter((c) => c.type === "data-artifact").map((c) => c.id))).toEqual(new Set(["artifact-t1-log"]));
  });

  test("raw events ride along as transient data parts when asked", () => {
    const r = createUiChunkReader({ taskId: "t1", contextId: "c1", agentId: "a", fromSeq: 0 }, { rawEvents: true });
    const e = status("completed", "ok", undefined, true);
    expect(r.feed(e)[0]).toEqual({ type: "data-a2a-event", data: e, transient: true });
  });
});

describe("error tables", () => {
  test("every TaskError reason has an OpenAI error and an AI SDK status, and docs/chat.md lists them", () => {
    const doc = readFileSync(join(ROOT, "docs", "chat.md"), "utf8");
    for (const reason of TASK_ERROR_REASONS) {
      const e = REASON_ERRORS[reason];
      expect(e.status).toBeGreaterThanOrEqual(400);
      expect(REASON_STATUS[reason]).toBe(e.status);
      expect(doc).toContain(`| \`${reason}\` | ${e.status} | \`${e.type}\` | \`${e.code}\` |`);
    }
    for (const [state, e] of Object.entries(TURN_ERRORS)) expect(doc).toContain(`| turn \`${state}\` | ${e.status} | \`${e.type}\` | \`${e.code}\` |`);
  });
});
