import { afterAll, beforeAll, describe, expect, test } from "@jest/globals";
import { RPC_ERROR_CODES as C } from "../../router/rpc/errors.js";
import { MAX_ID_CHARS } from "../../router/service/index.js";
import type { RunningRouter } from "../../router/index.js";
import { openStream, post, rpc, userMessage, type Json } from "../helpers/rpc.js";
import { testRouter } from "../helpers/router.js";

let router: RunningRouter;
beforeAll(async () => {
  router = await testRouter({ config: { limits: { maxBodyBytes: 4096 }, hub: { tokens: { t1: "offline-agent" } } } });
});
afterAll(() => router.close());

describe("JSON-RPC errors", () => {
  test("malformed JSON is -32700 with HTTP 200", async () => {
    const r = await post(router.url + "/rpc", "{not json");
    expect(r.status).toBe(200);
    expect(r.body.error.code).toBe(C.PARSE_ERROR);
    expect(r.body.id).toBeNull();
  });

  test("an envelope without method is -32600 naming the field", async () => {
    const r = await post(router.url + "/rpc", JSON.stringify({ jsonrpc: "2.0", id: 7 }));
    expect(r.body.error.code).toBe(C.INVALID_REQUEST);
    expect(r.body.error.data.field).toBe("method");
    expect(r.body.id).toBe(7);
  });

  test("a wrong jsonrpc version is -32600", async () => {
    const r = await post(router.url + "/rpc", JSON.stringify({ jsonrpc: "1.0", id: 1, method: "tasks/get", params: { id: "x" } }));
    expect(r.body.error.code).toBe(C.INVALID_REQUEST);
    expect(r.body.error.data.field).toBe("jsonrpc");
  });

  test("an unknown method is -32601", async () => {
    const r = await rpc(router.url, "tasks/explode", {});
    expect(r.error.code).toBe(C.METHOD_NOT_FOUND);
    expect(r.error.message).toContain("tasks/explode");
  });

  test("missing params fields are -32602 naming the field", async () => {
    const r = await rpc(router.url, "tasks/send", { id: "t-missing" });
    expect(r.error.code).toBe(C.INVALID_PARAMS);
    expect(r.error.data.field).toBe("message");
  });

  test.each([
    ["agent", 5],
    ["agent", ["echo"]],
    ["skill", { name: "x" }],
  ])("metadata.%s that is not a string (%j) is -32602 naming it, not a silent default", async (key, value) => {
    const v01 = await rpc(router.url, "tasks/send", { id: `t-meta-${key}-${typeof value}`, message: userMessage("hi"), metadata: { [key]: value } });
    expect(v01.error.code).toBe(C.INVALID_PARAMS);
    expect(v01.error.data.field).toBe(`metadata.${key}`);
    expect(v01.error.message).toBe(`Invalid params: metadata.${key} must be string`);
    const v03 = await rpc(router.url, "message/send", {
      message: { kind: "message", messageId: "m-meta", role: "user", parts: [{ kind: "text", text: "hi" }], metadata: {} },
      metadata: { [key]: value },
    });
    expect(v03.error.code).toBe(C.INVALID_PARAMS);
    expect(v03.error.data.field).toBe(`metadata.${key}`);
    // Nothing was created under the v0.1 id.
    expect((await rpc(router.url, "tasks/get", { id: `t-meta-${key}-${typeof value}` })).error.code).toBe(C.TASK_NOT_FOUND);
  });

  test("a client-chosen id longer than MAX_ID_CHARS is -32602 naming the dialect's own field; nothing is stored", async () => {
    const long = "i".repeat(MAX_ID_CHARS + 1);
    const expectTooLong = (r: Json, field: string): void => {
      expect(r.error.code).toBe(C.INVALID_PARAMS);
      // v1.0 says it in an ErrorInfo (its data is an array), v0.1 and v0.3 in their data object.
      expect(Array.isArray(r.error.data) ? r.error.data[0].metadata.field : r.error.data.field).toBe(field);
      expect(r.error.message).toBe(`Invalid params: ${field} is longer than ${MAX_ID_CHARS} characters (${MAX_ID_CHARS + 1})`);
    };
    expectTooLong(await rpc(router.url, "tasks/send", { id: long, message: userMessage("hi") }), "id");
    expect((await rpc(router.url, "tasks/get", { id: long })).error.code).toBe(C.TASK_NOT_FOUND);
    expectTooLong(await rpc(router.url, "tasks/send", { id: "t-long-session", sessionId: long, message: userMessage("hi") }), "sessionId");
    expect((await rpc(router.url, "tasks/get", { id: "t-long-session" })).error.code).toBe(C.TASK_NOT_FOUND);
    const v03 = (patch: object) => ({
      message: { kind: "message", messageId: "m-long", role: "user", parts: [{ kind: "text", text: "hi" }], ...patch },
      metadata: { agent: "echo" },
    });
    expectTooLong(await rpc(router.url, "message/send", v03({ messageId: long })), "message.messageId");
    expectTooLong(await rpc(router.url, "message/send", v03({ contextId: long })), "message.contextId");
    const v10 = (patch: object) =>
      post(
        router.url + "/rpc",
        JSON.stringify({
          jsonrpc: "2.0",
          id: 1,
          method: "SendMessage",
          params: { message: { role: "ROLE_USER", messageId: "m-long", parts: [{ text: "hi" }], ...patch }, metadata: { agent: "echo" } },
        }),
        { "A2A-Version": "1.0" },
      );
    expectTooLong((await v10({ contextId: long })).body, "message.contextId");
    expectTooLong((await v10({ taskId: long })).body, "message.taskId");
    // At the limit an id is like any other.
    const atLimit = await rpc(router.url, "tasks/send", {
      id: long.slice(1),
      sessionId: long.slice(1),
      message: userMessage("hi"),
      metadata: { agent: "echo" },
    });
    expect(atLimit.result).toMatchObject({ id: long.slice(1), sessionId: long.slice(1), status: { state: "completed" } });
    const push = await rpc(router.url, "tasks/pushNotification/set", {
      id: long.slice(1),
      pushNotificationConfig: { id: long, url: "https://example.com/hook" },
    });
    expectTooLong(push, "pushNotificationConfig.id");
    const v10Push = await post(
      router.url + "/rpc",
      JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "CreateTaskPushNotificationConfig",
        params: { taskId: long.slice(1), id: long, url: "https://example.com/hook" },
      }),
      { "A2A-Version": "1.0" },
    );
    expectTooLong(v10Push.body, "id");
  });

  test("a value outside an enum names the values allowed (not ajv's 'one of the allowed values')", async () => {
    const r = await post(
      router.url + "/rpc",
      JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "SendMessage",
        params: { message: { role: "ROLE_WIZARD", messageId: "m-enum", parts: [{ text: "x" }] } },
      }),
      { "A2A-Version": "1.0" },
    );
    expect(r.body.error.code).toBe(C.INVALID_PARAMS);
    expect(r.body.error.data).toEqual([
      { "@type": "type.googleapis.com/google.rpc.ErrorInfo", reason: "INVALID_PARAMS", domain: "a2a-protocol.org", metadata: { field: "message.role" } },
    ]);
    expect(r.body.error.message).toMatch(/^Invalid params: message\.role must be one of .*"ROLE_USER"/);
    expect(r.body.error.message).not.toContain("allowed values");
  });

  test("a bad nested field is named with its path", async () => {
    const r = await rpc(router.url, "tasks/send", { id: "t-nested", message: { role: "user", parts: [{ type: "text", text: 42 }] } });
    expect(r.error.code).toBe(C.INVALID_PARAMS);
    expect(r.error.data.field).toBe("message.parts[0].text");
    expect(r.error.message).toContain("message.parts[0].text");
  });

  test("an unknown part type is -32602 naming parts[i].type", async () => {
    const r = await rpc(router.url, "tasks/send", { id: "t-kind", message: { role: "user", parts: [{ type: "video" }] } });
    expect(r.error.code).toBe(C.INVALID_PARAMS);
    expect(r.error.data.field).toBe("message.parts[0].type");
  });

  test("a body over limits.maxBodyBytes is HTTP 413", async () => {
    const big = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tasks/send", params: { id: "big", message: userMessage("x".repeat(10_000)) } });
    const r = await post(router.url + "/rpc", big);
    expect(r.status).toBe(413);
    expect(r.body.error.message).toContain("maxBodyBytes");
  });

  test("unknown tasks are -32001 for get, cancel and resubscribe (a streaming method's as its stream's one event)", async () => {
    for (const method of ["tasks/get", "tasks/cancel"]) {
      const r = await rpc(router.url, method, { id: "no-such-task" });
      expect(r.error.code).toBe(C.TASK_NOT_FOUND);
      expect(r.error.data.taskId).toBe("no-such-task");
    }
    const [event, ...rest] = await (await openStream(router.url, "tasks/resubscribe", { id: "no-such-task" })).all();
    expect(event!.data.error).toMatchObject({ code: C.TASK_NOT_FOUND, data: { taskId: "no-such-task" } });
    expect(rest).toEqual([]);
  });

  test("canceling a finished task is -32002", async () => {
    const sent = await rpc(router.url, "tasks/send", { id: "done-1", message: userMessage("hi"), metadata: { agent: "echo" } });
    expect(sent.result.status.state).toBe("completed");
    const r = await rpc(router.url, "tasks/cancel", { id: "done-1" });
    expect(r.error.code).toBe(C.TASK_NOT_CANCELABLE);
  });

  test("an unknown agent is -32602 with data.agent", async () => {
    const r = await rpc(router.url, "tasks/send", { id: "t-agent", message: userMessage("hi"), metadata: { agent: "nobody" } });
    expect(r.error.code).toBe(C.INVALID_PARAMS);
    expect(r.error.data.agent).toBe("nobody");
    expect(r.error.message).toContain("nobody");
  });

  test("a known hub agent that is offline is -32050 agent unavailable", async () => {
    const r = await rpc(router.url, "tasks/send", { id: "t-off", message: userMessage("hi"), metadata: { agent: "offline-agent" } });
    expect(r.error).toEqual({ code: C.AGENT_UNAVAILABLE, message: "agent unavailable", data: { agent: "offline-agent" } });
  });

  test("an unknown agent on /agents/{id} is -32602", async () => {
    const r = await rpc(router.url, "tasks/send", { id: "t-path", message: userMessage("hi") }, { path: "/agents/ghost" });
    expect(r.error.data.agent).toBe("ghost");
  });

  test("batches answer each request, errors included, in order", async () => {
    const body = JSON.stringify([
      { jsonrpc: "2.0", id: 1, method: "tasks/send", params: { id: "b-1", message: userMessage("one"), metadata: { agent: "echo" } } },
      { jsonrpc: "2.0", id: 2, method: "tasks/get", params: { id: "b-1" } },
      { jsonrpc: "2.0", id: 3, method: "nope", params: {} },
      { jsonrpc: "2.0", method: "tasks/get", params: { id: "b-1" } },
      { jsonrpc: "2.0", id: 4, method: "tasks/sendSubscribe", params: { id: "b-2", message: userMessage("x") } },
    ]);
    const r = await post(router.url + "/rpc", body);
    expect(r.body.map((x: { id: number }) => x.id)).toEqual([1, 2, 3, 4]);
    expect(r.body[0].result.status.state).toBe("completed");
    expect(r.body[1].result.id).toBe("b-1");
    expect(r.body[2].error.code).toBe(C.METHOD_NOT_FOUND);
    expect(r.body[3].error.code).toBe(C.INVALID_REQUEST);
  });

  test("a request that is not an object is -32600, alone or in a batch", async () => {
    const alone = await post(router.url + "/rpc", "42");
    expect(alone.body.error).toMatchObject({ code: C.INVALID_REQUEST, message: "Invalid request: a request must be a JSON object" });
    const batch = await post(router.url + "/rpc", "[42]");
    expect(batch.body[0].error.code).toBe(C.INVALID_REQUEST);
  });

  test("an empty task id and a negative historyLength are -32602 naming the field", async () => {
    const empty = await rpc(router.url, "tasks/send", { id: "", message: userMessage("x"), metadata: { agent: "echo" } });
    expect(empty.error.data.field).toBe("id");
    const negative = await rpc(router.url, "tasks/get", { id: "done-1", historyLength: -1 });
    expect(negative.error.data.field).toBe("historyLength");
  });

  test("a per-agent endpoint only sees its own agent's tasks", async () => {
    await rpc(router.url, "tasks/send", { id: "iso-1", message: userMessage("x"), metadata: { agent: "echo" } });
    expect((await rpc(router.url, "tasks/get", { id: "iso-1" }, { path: "/agents/echo" })).result.id).toBe("iso-1");
    expect((await rpc(router.url, "tasks/get", { id: "iso-1" }, { path: "/agents/eliza" })).error.code).toBe(C.TASK_NOT_FOUND);
    expect((await rpc(router.url, "tasks/cancel", { id: "iso-1" }, { path: "/agents/eliza" })).error.code).toBe(C.TASK_NOT_FOUND);
  });

  test("JSON nested deeper than 100 levels is refused, and the router goes on serving", async () => {
    // Written as text: the test's own JSON.stringify could not serialize it either.
    const deep = "[".repeat(1500) + "1" + "]".repeat(1500); // fits this router's 4096-byte body limit
    const body = `{"jsonrpc":"2.0","id":1,"method":"tasks/send","params":{"id":"deep-1","message":${JSON.stringify(userMessage("x"))},"metadata":{"agent":"echo","deep":${deep}}}}`;
    const r = await post(router.url + "/rpc", body);
    expect(r.body.error).toMatchObject({ code: C.INVALID_REQUEST, message: "Invalid request: JSON nests deeper than 100 levels" });
    const after = await rpc(router.url, "tasks/send", { id: "after-deep", message: userMessage("ok"), metadata: { agent: "echo" } });
    expect(after.result.status.state).toBe("completed");
  });

  test("concurrent sends with one new task id start exactly one task", async () => {
    const sends = Array.from({ length: 10 }, (_, i) =>
      rpc(router.url, "tasks/send", { id: "same-1", message: userMessage(`m${i}`), metadata: { agent: "echo" } }),
    );
    const results = await Promise.all(sends);
    const ok = results.filter((r) => r.result);
    expect(ok).toHaveLength(1);
    for (const r of results.filter((x) => x.error)) expect([C.INVALID_PARAMS, C.UNSUPPORTED_OPERATION]).toContain(r.error.code);
    const replay = await openStream(router.url, "tasks/resubscribe", { id: "same-1" }, { headers: { "last-event-id": "0" } });
    expect((await replay.all()).map((e) => e.id)).toEqual(["1", "2"]);
  });

  test("an empty batch is -32600", async () => {
    const r = await post(router.url + "/rpc", "[]");
    expect(r.body.error.code).toBe(C.INVALID_REQUEST);
  });

  test("a notification gets no body", async () => {
    const res = await fetch(router.url + "/rpc", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ jsonrpc: "2.0", method: "tasks/get", params: { id: "x" } }),
    });
    expect(res.status).toBe(204);
  });

  test("sending again to a finished task is -32004 unsupported operation", async () => {
    await rpc(router.url, "tasks/send", { id: "again-1", message: userMessage("hi"), metadata: { agent: "echo" } });
    const r = await rpc(router.url, "tasks/send", { id: "again-1", message: userMessage("hi"), metadata: { agent: "echo" } });
    expect(r.error.code).toBe(C.UNSUPPORTED_OPERATION);
    expect(r.error.message).toContain("task again-1 is already completed");
    expect(r.error.data).toEqual({ taskId: "again-1", state: "completed" });
  });
});

describe("API keys", () => {
  let secured: RunningRouter;
  beforeAll(async () => {
    secured = await testRouter({ config: { apiKeys: ["k1"] } });
  });
  afterAll(() => secured.close());

  test("missing or wrong keys are HTTP 401; a right key passes", async () => {
    const body = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tasks/get", params: { id: "x" } });
    expect((await post(secured.url + "/rpc", body)).status).toBe(401);
    expect((await post(secured.url + "/rpc", body, { authorization: "Bearer nope" })).status).toBe(401);
    const ok = await post(secured.url + "/rpc", body, { authorization: "Bearer k1" });
    expect(ok.status).toBe(200);
    expect(ok.body.error.code).toBe(C.TASK_NOT_FOUND);
    expect((await post(secured.url + "/rpc", body, { "x-api-key": "k1" })).status).toBe(200);
  });

  test("health and cards stay public", async () => {
    expect((await fetch(secured.url + "/healthz")).status).toBe(200);
    expect((await fetch(secured.url + "/.well-known/agent.json")).status).toBe(200);
    expect((await fetch(secured.url + "/agents")).status).toBe(401);
  });
});
