import { afterEach, expect, jest, test } from "@jest/globals";
import { eventBytes, eventJson, noteEventBytes, stored } from "../../router/core/event-bytes.js";
import { memoForm, setMemoForm } from "../../router/core/event-memo.js";
import type { LoggedEvent } from "../../router/core/model.js";
import { dialectByName } from "../../router/dialects/index.js";
import { eventMessage } from "../../router/rpc/stream-render.js";

function statusEvent(text: string, seq = 1): LoggedEvent {
  return {
    kind: "status",
    status: { state: "working", message: { role: "agent", parts: [{ kind: "text", text }] }, timestamp: "2026-11-26T00:00:00.000Z" },
    final: false,
    taskId: "t1",
    contextId: "c1",
    seq,
  };
}

afterEach(() => {
  jest.restoreAllMocks();
});

test("an event's JSON is its JSON.stringify, serialized once however often it is asked for", () => {
  const event = statusEvent("hello");
  const expected = JSON.stringify(event);
  const spy = jest.spyOn(JSON, "stringify");
  expect(eventJson(event)).toBe(expected);
  expect(eventJson(event)).toBe(expected);
  expect(eventBytes(event)).toBe(expected.length);
  expect(spy).toHaveBeenCalledTimes(1);
});

test("the memo is invisible: not serialized, not copied by spread or structuredClone, not seen by deep equality", () => {
  const event = statusEvent("hello");
  const before = JSON.stringify(event);
  eventJson(event);
  setMemoForm(event, "v0.1", "rendered");
  expect(JSON.stringify(event)).toBe(before);
  expect(Object.keys(event)).toEqual(["kind", "status", "final", "taskId", "contextId", "seq"]);
  expect(event).toStrictEqual(statusEvent("hello"));
  const clone = structuredClone(event);
  expect(clone).toEqual(event);
  expect(Object.getOwnPropertySymbols(clone)).toEqual([]);

  // A copy that differs gets its own JSON, never its original's.
  const copy: LoggedEvent = { ...event, seq: 2 };
  expect(eventJson(copy)).toBe(JSON.stringify(statusEvent("hello", 2)));
  expect(memoForm(copy, "v0.1")).toBeUndefined();
});

test("a frozen event is serialized and sized all the same", () => {
  const event = Object.freeze(statusEvent("cold"));
  expect(eventJson(event)).toBe(JSON.stringify(event));
  expect(eventBytes(event)).toBe(JSON.stringify(event).length);
  expect(memoForm(event, "v0.1")).toBeUndefined();
});

test("a large event lets its JSON go once stored and keeps its size; a small one keeps its JSON", () => {
  const large = statusEvent("x".repeat(20_000));
  const small = statusEvent("y");
  const largeJson = eventJson(large);
  const smallJson = eventJson(small);
  stored(large);
  stored(small);
  const spy = jest.spyOn(JSON, "stringify");
  expect(eventBytes(large)).toBe(largeJson.length);
  expect(eventBytes(small)).toBe(smallJson.length);
  expect(eventJson(small)).toBe(smallJson);
  expect(spy).not.toHaveBeenCalled();
  // Asked for again, the large one is serialized again, to the same text.
  expect(eventJson(large)).toBe(largeJson);
});

test("an event a store parsed is sized by the JSON it was read as, without serializing it", () => {
  const event = statusEvent("read back");
  noteEventBytes(event, 1234);
  const spy = jest.spyOn(JSON, "stringify");
  expect(eventBytes(event)).toBe(1234);
  expect(spy).not.toHaveBeenCalled();
});

test("each dialect renders an event once, into its own form, whatever the request id around it", () => {
  const event = statusEvent("twice");
  const v01 = dialectByName("v0.1");
  const v03 = dialectByName("v0.3");
  const rendered01 = jest.spyOn(v01, "renderEvent");
  const rendered03 = jest.spyOn(v03, "renderEvent");
  const a = eventMessage(v01, 1, event);
  const b = eventMessage(v01, "second", event);
  const c = eventMessage(v03, 7, event);
  const d = eventMessage(v03, 8, event);
  expect(rendered01).toHaveBeenCalledTimes(1);
  expect(rendered03).toHaveBeenCalledTimes(1);
  jest.restoreAllMocks();
  const results = [a, b, c, d].map((m) => JSON.parse(m.data as string) as { id: unknown; result: unknown });
  expect(results.map((r) => r.id)).toEqual([1, "second", 7, 8]);
  expect(results[0]!.result).toEqual(v01.renderEvent(event));
  expect(results[1]!.result).toEqual(results[0]!.result);
  expect(results[2]!.result).toEqual(v03.renderEvent(event));
  expect(results[3]!.result).toEqual(results[2]!.result);
  expect(results[0]!.result).not.toEqual(results[2]!.result);
  expect([a, b, c, d].map((m) => m.seq)).toEqual([1, 1, 1, 1]);
});
