import { describe, expect, test } from "@jest/globals";
import { callBody, callUrl, type ClientCall } from "../../router/client/index.js";
import { callResult, sseResults } from "../../router/upstream/transport.js";

/**
 * The two bindings' envelopes, in memory: JSON-RPC wraps a call and its answers; the v1.0 HTTP+JSON binding
 * sends the params to a path and answers bare, with google.rpc.Status errors (also mid-stream, as
 * @a2a-js/sdk's REST server writes them: `event: error`).
 */
const rpcCall: ClientCall = { method: "SendMessage", params: { message: {} } };
const restCall: ClientCall = { method: "SendStreamingMessage", params: { message: {} }, path: "/message:stream" };
const status = { error: { code: 404, status: "NOT_FOUND", message: "Task not found: t-1", details: [] } };

describe("request", () => {
  test("JSON-RPC: the endpoint itself, an envelope; HTTP+JSON: a path under it, the params as they are", () => {
    expect(callUrl("http://h/a2a", rpcCall)).toBe("http://h/a2a");
    expect(JSON.parse(callBody(rpcCall)!)).toMatchObject({ jsonrpc: "2.0", method: "SendMessage", params: { message: {} } });
    expect(callUrl("http://h/a2a/rest/", restCall)).toBe("http://h/a2a/rest/message:stream");
    expect(JSON.parse(callBody(restCall)!)).toEqual({ message: {} });
  });
});

describe("answers", () => {
  test("JSON-RPC results are unwrapped; REST results are the object itself", () => {
    expect(callResult({ jsonrpc: "2.0", id: 1, result: { task: {} } }, "a", rpcCall)).toEqual({ task: {} });
    expect(callResult({ task: {} }, "a", restCall)).toEqual({ task: {} });
  });

  test("a google.rpc.Status in place of a REST result throws its code and message, briefly", () => {
    expect(() => callResult(status, "a", restCall)).toThrow("Upstream agent a error 404 on SendStreamingMessage: Task not found: t-1");
    const long = { error: { code: 500, message: "x".repeat(1000) } };
    expect(() => callResult(long, "a", restCall)).toThrow(/^Upstream agent a error 500 on SendStreamingMessage: x{200}$/);
    expect(() => callResult([1], "a", restCall)).toThrow("Upstream agent a sent a result that is not a JSON object on SendStreamingMessage");
  });

  test("a REST stream: bare StreamResponse events, then an `event: error` fails the turn with its message", async () => {
    const body = `data: ${JSON.stringify({ statusUpdate: { taskId: "t" } })}\n\nevent: error\ndata: ${JSON.stringify(status)}\n\n`;
    const res = new Response(body, { headers: { "content-type": "text/event-stream" } });
    const seen: unknown[] = [];
    await expect(
      (async () => {
        for await (const r of sseResults(res, "a", 10_000, restCall)) seen.push(r);
      })(),
    ).rejects.toThrow("Upstream agent a error 404 on stream: Task not found: t-1");
    expect(seen).toEqual([{ statusUpdate: { taskId: "t" } }]);
  });
});
