import { describe, expect, test } from "@jest/globals";
import { decodeJson, encodeJson, messageType } from "../../router/dialects/v10/grpc/proto.js";
import { encodeStreamResponse } from "../../router/dialects/v10/grpc/stream-encoder.js";
import { eventToV10 } from "../../router/dialects/v10/translate.js";

/**
 * The streamed events' encoder (protobufjs via @grpc/proto-loader) says what the reference encoder
 * (@bufbuild/protobuf's ProtoJSON) says, for every shape a StreamResponse takes: each decodes to the same
 * message, and the shapes the router renders are the same bytes.
 */

const STREAM_RESPONSE = messageType("lf.a2a.v1.StreamResponse");

const same = (json: unknown, bytes = true) => {
  const fast = encodeStreamResponse(json);
  const reference = encodeJson(STREAM_RESPONSE, json);
  expect(decodeJson(STREAM_RESPONSE, fast)).toEqual(decodeJson(STREAM_RESPONSE, reference));
  if (bytes) expect(Buffer.compare(fast, reference)).toBe(0);
};

const nested = { s: "v", n: -1.5, b: false, z: null, list: [1, "two", [true], { deep: { deeper: [] } }], empty: {} };

describe("the gRPC face's StreamResponse encoder", () => {
  test.each([
    ["a status with its message, a timestamp in ms, and metadata", eventToV10(statusEvent("2026-11-27T18:47:35.424Z"))],
    [
      "a timestamp in ns with an offset",
      { statusUpdate: { taskId: "t", contextId: "c", status: { state: "TASK_STATE_WORKING", timestamp: "2026-11-27T20:47:35.123456789+02:00" } } },
    ],
    [
      "a timestamp in whole seconds, before 1970",
      { statusUpdate: { taskId: "t", contextId: "c", status: { state: "TASK_STATE_COMPLETED", timestamp: "1969-07-20T20:17:40Z" } } },
    ],
    ["nested metadata of every JSON kind", { statusUpdate: { taskId: "t", contextId: "c", status: { state: "TASK_STATE_INPUT_REQUIRED" }, metadata: nested } }],
    [
      "an artifact of every part kind",
      {
        artifactUpdate: {
          taskId: "t",
          contextId: "c",
          append: true,
          lastChunk: true,
          artifact: {
            artifactId: "a",
            name: "n",
            description: "d",
            parts: [
              { text: "hi", metadata: { k: "v" } },
              { raw: Buffer.from([0, 1, 2, 250, 255]).toString("base64"), filename: "f.bin", mediaType: "application/octet-stream" },
              { url: "https://example.com/f", filename: "f" },
              { data: nested },
              { data: [1, null, "x"] },
              { data: "a string" },
              { data: 7 },
              { data: null },
            ],
            metadata: nested,
            extensions: ["https://example.com/ext"],
          },
        },
      },
    ],
    [
      "a task with history and artifacts",
      {
        task: {
          id: "t",
          contextId: "c",
          status: {
            state: "TASK_STATE_WORKING",
            message: { messageId: "m0", role: "ROLE_AGENT", parts: [{ text: "on it" }] },
            timestamp: "2026-01-02T03:04:05.5Z",
          },
          artifacts: [{ artifactId: "a", parts: [{ data: { x: [1, 2] } }] }],
          history: [
            { messageId: "m1", role: "ROLE_USER", parts: [{ text: "hi" }], referenceTaskIds: ["t0"], extensions: ["e"], metadata: { k: 1 } },
            { messageId: "m2", role: "ROLE_AGENT", parts: [{ text: "hello" }], taskId: "t", contextId: "c" },
          ],
          metadata: { owner: "x" },
        },
      },
    ],
    ["a message", { message: { messageId: "m", role: "ROLE_AGENT", parts: [{ text: "done" }], contextId: "c" } }],
    [
      "fields the proto does not define (ignored)",
      { statusUpdate: { taskId: "t", contextId: "c", status: { state: "TASK_STATE_WORKING" }, newerField: { a: 1 } } },
    ],
    [
      "nulls (unset)",
      { statusUpdate: { taskId: "t", contextId: "c", status: { state: "TASK_STATE_WORKING", message: null, timestamp: null }, metadata: null } },
    ],
  ])("%s", (_, json) => same(json));

  // protobufjs writes a field that is set even to its zero value, where proto3 leaves it out: other bytes, the same message.
  test("zero values written out (the same message)", () =>
    same(
      {
        statusUpdate: {
          taskId: "",
          contextId: "c",
          status: { state: "TASK_STATE_UNSPECIFIED", message: { messageId: "", role: "ROLE_UNSPECIFIED", parts: [{ text: "" }] } },
        },
      },
      false,
    ));

  test.each([
    ["a timestamp that is not RFC 3339", { statusUpdate: { taskId: "t", contextId: "c", status: { state: "TASK_STATE_WORKING", timestamp: "yesterday" } } }],
    [
      "metadata holding what is not JSON",
      { statusUpdate: { taskId: "t", contextId: "c", status: { state: "TASK_STATE_WORKING" }, metadata: { a: [1, undefined] } } },
    ],
  ])("%s is refused, as the reference refuses it", (_, json) => {
    expect(() => encodeJson(STREAM_RESPONSE, json)).toThrow();
    expect(() => encodeStreamResponse(json)).toThrow();
  });
});

function statusEvent(timestamp: string): Parameters<typeof eventToV10>[0] {
  return {
    kind: "status",
    taskId: "01a21e55-96df-7dd6-b153-b02723559f5d",
    contextId: "01a21e55-96df-7dd6-b153-b028aeae75af",
    seq: 1,
    final: false,
    status: { state: "working", message: { role: "agent", parts: [{ kind: "text", text: "ev1." }] }, timestamp },
    metadata: { textKind: "progress" },
  } as Parameters<typeof eventToV10>[0];
}
