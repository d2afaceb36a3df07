/** The Responses face's pure parts, in memory: response ids, and a turn's events -> typed response events. */
import { describe, expect, test } from "@jest/globals";
import type { LoggedEvent, Part } from "../../router/core/model.js";
import { createResponseTranslator, decodeResponseId, encodeResponseId, type ResponseBase, type ResponseEvent } from "../../router/faces/responses/index.js";
import { typesOf } from "./helpers.js";

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
function artifact(id: string, parts: Part[], append = false): LoggedEvent {
  return { ...at, seq: ++seq, kind: "artifact", artifact: { artifactId: id, name: id, parts }, append };
}

const base: ResponseBase = {
  id: encodeResponseId({ taskId: "t1", fromSeq: 0, messageIndex: 0 }),
  createdAt: 1_700_000_000,
  model: "agent",
  background: false,
  metadata: { ticket: "7" },
  previousResponseId: null,
  taskId: "t1",
  contextId: "c1",
};

/** Every event a turn gives, and the response it ends with. */
function translate(events: LoggedEvent[], b: ResponseBase = base) {
  const t = createResponseTranslator(b);
  const out: ResponseEvent[] = [...t.start(), ...events.flatMap((e) => t.feed(e))];
  return { events: out, response: t.response() };
}

const deltas = (events: ResponseEvent[], type: string) => events.filter((e) => e.type === type).map((e) => e.delta as string);

describe("response ids", () => {
  test("round trip, for any task id; anything else is not an id", () => {
    for (const taskId of ["t1", "a.b.c", "9b2f-…-ü", "x".repeat(200)]) {
      const ref = { taskId, fromSeq: 12, messageIndex: 3 };
      const id = encodeResponseId(ref);
      expect(id).toMatch(/^resp_[A-Za-z0-9_-]+$/);
      expect(decodeResponseId(id)).toEqual(ref);
    }
    for (const id of ["", "resp_", "resp_!!", "chatcmpl-1", `resp_${Buffer.from("x.1.t").toString("base64url")}`]) expect(decodeResponseId(id)).toBeUndefined();
  });
});

describe("a turn as response events", () => {
  test("the same events give the same response events, numbered 0, 1, 2, ...", () => {
    const turn = () => [
      status("working", "thinking", "progress"),
      status("working", "Hel", "delta"),
      status("working", "lo", "delta"),
      status("completed", "Hello", "snapshot", true),
    ];
    const once = translate(turn());
    expect(once.events.map((e) => e.sequence_number)).toEqual(once.events.map((_, i) => i));
    expect(JSON.stringify(translate(turn()).events)).toBe(JSON.stringify(once.events));
    expect(once.response.status).toBe("completed");
    expect(once.response.metadata).toEqual({ ticket: "7", a2a_task_id: "t1", a2a_context_id: "c1", a2a_state: "completed" });
    expect(once.response.output.map((o) => o.type)).toEqual(["reasoning", "message"]);
  });

  test("a snapshot that turns out to be the answer is not reasoning; one the turn goes on from is", () => {
    const echo = translate([status("working", "hi", "snapshot"), status("completed", "hi", "snapshot", true)]);
    expect(echo.response.output.map((o) => o.type)).toEqual(["message"]);
    const eliza = translate([
      status("working", "Playing.", "snapshot"),
      status("working", "Now playing jazz", "progress"),
      status("completed", "Done.", "snapshot", true),
    ]);
    expect(deltas(eliza.events, "response.reasoning_summary_text.delta")).toEqual(["Playing.", "Now playing jazz"]);
  });

  test("progress after the answer started opens another reasoning item after the message", () => {
    const { events, response } = translate([
      status("working", "Hi", "delta"),
      status("working", "checking", "progress"),
      status("completed", "Hi there", "snapshot", true),
    ]);
    expect(response.output.map((o) => o.type)).toEqual(["message", "reasoning"]);
    expect(deltas(events, "response.output_text.delta").join("")).toBe("Hi there");
    expect(events.filter((e) => e.type === "response.output_item.added").map((e) => e.output_index)).toEqual([0, 1]);
  });

  test("appended artifact chunks continue one summary line", () => {
    const { response } = translate([
      artifact("log", [{ kind: "text", text: "a" }]),
      artifact("log", [{ kind: "text", text: "b" }], true),
      status("completed", "ok", undefined, true),
    ]);
    const reasoning = response.output[0]!;
    expect(reasoning.type === "reasoning" && reasoning.summary).toEqual([{ type: "summary_text", text: "log: ab" }]);
  });

  test("a rewritten answer: the done event and the response hold exactly the answer", () => {
    const { events, response } = translate([status("working", "draft", "delta"), status("completed", "Final.", "snapshot", true)]);
    expect(deltas(events, "response.output_text.delta").join("")).toBe("draft\n\nFinal.");
    expect(events.find((e) => e.type === "response.output_text.done")!.text).toBe("Final.");
    const message = response.output.at(-1)!;
    expect(message.type === "message" && message.content[0]!.text).toBe("Final.");
  });

  test("input-required is completed with the question; failed keeps what streamed; canceled is incomplete", () => {
    const asked = translate([status("input-required", "From where?", "snapshot", true)]);
    expect(asked.response.status).toBe("completed");
    expect(asked.response.metadata.a2a_state).toBe("input-required");
    const failed = translate([status("working", "par", "delta"), status("failed", "boom", undefined, true)]);
    expect(failed.response.status).toBe("failed");
    expect(failed.response.error).toEqual({ message: "boom", type: "server_error", param: null, code: "agent_failed" });
    expect(typesOf(failed.events).at(-1)).toBe("response.failed");
    const message = failed.response.output[0]!;
    expect(message.type === "message" && [message.status, message.content[0]!.text]).toEqual(["incomplete", "par"]);
    const canceled = translate([status("canceled", "Canceled by the client.", "snapshot", true)]);
    expect(canceled.response.status).toBe("cancelled");
    expect(typesOf(canceled.events)).toEqual(["response.created", "response.in_progress", "response.incomplete"]);
  });

  test("background: queued until the turn's first event", () => {
    const t = createResponseTranslator({ ...base, background: true });
    expect(t.start()[0]!.response).toMatchObject({ status: "queued", background: true });
    expect(t.response().status).toBe("queued");
    expect(typesOf(t.feed(status("working", "x", "progress")))).toContain("response.in_progress");
    expect(t.response().status).toBe("in_progress");
  });
});
