import { afterAll, beforeAll, describe, expect, test } from "@jest/globals";
import type { Response } from "express";
import { TASK_ERROR_REASONS, TaskError, type TaskErrorReason } from "../../router/core/errors.js";
import { A2A_REASON_NAMES, errorDetails } from "../../router/dialects/index.js";
import { REASON_STATUS, sendRefusal } from "../../router/faces/ai-sdk/errors.js";
import { fromThrown, REASON_ERRORS as OPENAI_ERRORS } from "../../router/faces/shared/openai-errors.js";
import { restError } from "../../router/faces/rest/errors.js";
import type { RunningRouter } from "../../router/index.js";
import { RPC_ERROR_CODES as C, REASON_CODES, RpcError, rpcErrorBody } from "../../router/rpc/errors.js";
import { HUB_ERROR_CODES, HUB_REASON_CODES, toHubRefusal } from "../../hub/wire/index.js";
import { post, rpc } from "../helpers/rpc.js";
import { testRouter } from "../helpers/router.js";

/**
 * Every reason through every face's table: the JSON-RPC code, the HTTP+JSON status with its ErrorInfo reason,
 * the OpenAI status and code, the AI SDK status. A reason added to core without a row here fails the first test.
 */
interface Row {
  rpc: number;
  /** The ErrorInfo reason on v1.0 (JSON-RPC data, REST details); null where A2A names none. */
  a2a: string | null;
  rest: [number, string];
  openAi: [number, string];
  aiSdk: number;
}

const ROWS: Record<TaskErrorReason, Row> = {
  "task-not-found": { rpc: C.TASK_NOT_FOUND, a2a: "TASK_NOT_FOUND", rest: [404, "NOT_FOUND"], openAi: [404, "task_not_found"], aiSdk: 404 },
  "task-not-cancelable": {
    rpc: C.TASK_NOT_CANCELABLE,
    a2a: "TASK_NOT_CANCELABLE",
    rest: [400, "FAILED_PRECONDITION"],
    openAi: [409, "task_not_cancelable"],
    aiSdk: 409,
  },
  "unknown-agent": { rpc: C.INVALID_PARAMS, a2a: "INVALID_PARAMS", rest: [400, "INVALID_ARGUMENT"], openAi: [404, "model_not_found"], aiSdk: 404 },
  "agent-unavailable": { rpc: C.AGENT_UNAVAILABLE, a2a: null, rest: [503, "UNAVAILABLE"], openAi: [503, "agent_unavailable"], aiSdk: 503 },
  "invalid-params": { rpc: C.INVALID_PARAMS, a2a: "INVALID_PARAMS", rest: [400, "INVALID_ARGUMENT"], openAi: [400, "invalid_params"], aiSdk: 400 },
  "unsupported-operation": {
    rpc: C.UNSUPPORTED_OPERATION,
    a2a: "UNSUPPORTED_OPERATION",
    rest: [400, "FAILED_PRECONDITION"],
    openAi: [400, "unsupported_operation"],
    aiSdk: 400,
  },
  "push-not-supported": {
    rpc: C.PUSH_NOT_SUPPORTED,
    a2a: "PUSH_NOTIFICATION_NOT_SUPPORTED",
    rest: [400, "FAILED_PRECONDITION"],
    openAi: [400, "push_not_supported"],
    aiSdk: 400,
  },
  "version-not-supported": {
    rpc: C.VERSION_NOT_SUPPORTED,
    a2a: "VERSION_NOT_SUPPORTED",
    rest: [400, "FAILED_PRECONDITION"],
    openAi: [400, "version_not_supported"],
    aiSdk: 400,
  },
  "invalid-agent-response": {
    rpc: C.INVALID_AGENT_RESPONSE,
    a2a: "INVALID_AGENT_RESPONSE",
    rest: [500, "INTERNAL"],
    openAi: [502, "invalid_agent_response"],
    aiSdk: 502,
  },
  "method-not-found": { rpc: C.METHOD_NOT_FOUND, a2a: null, rest: [404, "NOT_FOUND"], openAi: [404, "not_found"], aiSdk: 404 },
  "extended-card-not-configured": {
    rpc: C.EXTENDED_CARD_NOT_CONFIGURED,
    a2a: "EXTENDED_AGENT_CARD_NOT_CONFIGURED",
    rest: [400, "FAILED_PRECONDITION"],
    openAi: [400, "extended_card_not_configured"],
    aiSdk: 400,
  },
  "content-type-not-supported": {
    rpc: C.CONTENT_TYPE_NOT_SUPPORTED,
    a2a: "CONTENT_TYPE_NOT_SUPPORTED",
    rest: [400, "INVALID_ARGUMENT"],
    openAi: [415, "content_type_not_supported"],
    aiSdk: 415,
  },
  unauthenticated: { rpc: C.INVALID_REQUEST, a2a: null, rest: [401, "UNAUTHENTICATED"], openAi: [401, "invalid_api_key"], aiSdk: 401 },
  "shutting-down": { rpc: C.INTERNAL_ERROR, a2a: null, rest: [503, "UNAVAILABLE"], openAi: [503, "shutting_down"], aiSdk: 503 },
  "idempotency-conflict": {
    rpc: C.INVALID_PARAMS,
    a2a: "INVALID_PARAMS",
    rest: [409, "ALREADY_EXISTS"],
    openAi: [409, "idempotency_conflict"],
    aiSdk: 409,
  },
  internal: { rpc: C.INTERNAL_ERROR, a2a: null, rest: [500, "INTERNAL"], openAi: [500, "internal_error"], aiSdk: 500 },
};

const INFO = "type.googleapis.com/google.rpc.ErrorInfo";
const STRUCT = "type.googleapis.com/google.protobuf.Struct";

/** A response that records what a face answered. */
function recorder(): { res: Response; answer: { status?: number; body?: unknown } } {
  const answer: { status?: number; body?: unknown } = {};
  const res = {
    set() {
      return res;
    },
    status(code: number) {
      answer.status = code;
      return res;
    },
    json(body: unknown) {
      answer.body = body;
      return res;
    },
  };
  return { res: res as unknown as Response, answer };
}

test("every reason has a row here, and A2A_REASON_NAMES covers every reason", () => {
  expect(Object.keys(ROWS).sort()).toEqual([...TASK_ERROR_REASONS].sort());
  expect(Object.keys(A2A_REASON_NAMES).sort()).toEqual([...TASK_ERROR_REASONS].sort());
});

describe.each(TASK_ERROR_REASONS.map((r) => [r, ROWS[r]] as const))("reason %s", (reason, row) => {
  const err = new TaskError(reason, `the ${reason} case`, { field: "message.parts", n: 2 });

  test("JSON-RPC: its code; v0.3 keeps the data object, v1.0 an ErrorInfo (or the facts as a Struct)", () => {
    expect(REASON_CODES[reason]).toBe(row.rpc);
    expect(rpcErrorBody(err, "v0.3")).toEqual({ code: row.rpc, message: `the ${reason} case`, data: { field: "message.parts", n: 2 } });
    expect(rpcErrorBody(err, undefined)).toEqual(rpcErrorBody(err, "v0.1"));
    const v10 = rpcErrorBody(err, "v1.0");
    expect(v10).toMatchObject({ code: row.rpc, message: `the ${reason} case` });
    expect(v10.data).toEqual(
      row.a2a
        ? [{ "@type": INFO, reason: row.a2a, domain: "a2a-protocol.org", metadata: { field: "message.parts", n: "2" } }]
        : [{ "@type": STRUCT, value: { field: "message.parts", n: 2 } }],
    );
  });

  test("HTTP+JSON: its status, with the same ErrorInfo reason as JSON-RPC v1.0", () => {
    const { http, body } = restError(err);
    expect(http).toBe(row.rest[0]);
    const e = (body as { error: { code: number; status: string; message: string; details: unknown[] } }).error;
    expect(e).toMatchObject({ code: row.rest[0], status: row.rest[1], message: `the ${reason} case` });
    expect(e.details).toEqual(errorDetails(reason, err.data));
    expect(e.details).toEqual(rpcErrorBody(err, "v1.0").data);
  });

  test("OpenAI: its status and code", () => {
    expect(OPENAI_ERRORS[reason]).toMatchObject({ status: row.openAi[0], code: row.openAi[1] });
    expect(fromThrown(err)).toEqual({ err: OPENAI_ERRORS[reason], message: `the ${reason} case`, param: "message.parts" });
  });

  test("AI SDK: its status, the reason named in the body", () => {
    expect(REASON_STATUS[reason]).toBe(row.aiSdk);
    const { res, answer } = recorder();
    sendRefusal(res, err);
    expect(answer).toEqual({ status: row.aiSdk, body: { error: { message: `the ${reason} case`, reason, data: err.data } } });
  });
});

test("an A2A reason without facts still carries its ErrorInfo on v1.0; a reason A2A does not name carries no data", () => {
  expect(rpcErrorBody(TaskError.pushNotSupported(), "v1.0")).toEqual({
    code: C.PUSH_NOT_SUPPORTED,
    message: "Push Notification is not supported",
    data: [{ "@type": INFO, reason: "PUSH_NOTIFICATION_NOT_SUPPORTED", domain: "a2a-protocol.org" }],
  });
  expect(rpcErrorBody(TaskError.internal("x"), "v1.0")).toEqual({ code: C.INTERNAL_ERROR, message: "Internal error: x" });
  expect(rpcErrorBody(new Error("secret stack"), "v1.0")).toEqual({
    code: C.INTERNAL_ERROR,
    message: "Internal error: the router could not complete the request",
  });
  // The JSON-RPC face's own refusals: their facts as a Struct on v1.0, as before elsewhere.
  expect(rpcErrorBody(RpcError.invalidRequest("no", "method"), "v1.0").data).toEqual([{ "@type": STRUCT, value: { field: "method" } }]);
  expect(rpcErrorBody(RpcError.invalidRequest("no", "method"), "v0.3").data).toEqual({ field: "method" });
});

describe("over the wire", () => {
  let router: RunningRouter;
  beforeAll(async () => {
    router = await testRouter();
  });
  afterAll(() => router.close());

  test("v1.0 GetTask of an unknown task: data is an array holding an ErrorInfo (A2A v1.0.1 9.5)", async () => {
    const r = await rpc(router.url, "GetTask", { id: "no-such-task" }, { headers: { "A2A-Version": "1.0" } });
    expect(r.error).toEqual({
      code: C.TASK_NOT_FOUND,
      message: "Task not found: no-such-task",
      data: [{ "@type": INFO, reason: "TASK_NOT_FOUND", domain: "a2a-protocol.org", metadata: { taskId: "no-such-task" } }],
    });
    // Without the header the method still says v1.0.
    expect((await rpc(router.url, "GetTask", { id: "no-such-task" })).error.data).toEqual(r.error.data);
  });

  test("v0.3 and v0.1 tasks/get of an unknown task: data stays the object their clients read", async () => {
    for (const method of ["tasks/get", "tasks/cancel"]) {
      const r = await rpc(router.url, method, { id: "no-such-task" }, { headers: { "A2A-Version": "0.3" } });
      expect(r.error).toEqual({ code: C.TASK_NOT_FOUND, message: "Task not found: no-such-task", data: { taskId: "no-such-task" } });
    }
  });

  test("v1.0 params errors name the field in the ErrorInfo's metadata; v0.3's in data.field", async () => {
    const v10 = await rpc(
      router.url,
      "SendMessage",
      { message: { role: "ROLE_USER", messageId: "m", parts: [{ text: 5 }] } },
      { headers: { "A2A-Version": "1.0" } },
    );
    expect(v10.error.code).toBe(C.INVALID_PARAMS);
    expect(v10.error.data).toEqual([{ "@type": INFO, reason: "INVALID_PARAMS", domain: "a2a-protocol.org", metadata: { field: "message.parts[0].text" } }]);
    const v03 = await rpc(router.url, "message/send", { message: { kind: "message", role: "user", messageId: "m", parts: [{ kind: "text", text: 5 }] } });
    expect(v03.error.code).toBe(C.INVALID_PARAMS);
    expect(v03.error.data).toEqual({ field: "message.parts[0].text" });
  });

  test("a method nobody knows, asked in v1.0, answers v1.0's shape; asked in v0.3, the object", async () => {
    const v10 = await rpc(router.url, "Explode", {}, { headers: { "A2A-Version": "1.0" } });
    expect(v10.error).toEqual({ code: C.METHOD_NOT_FOUND, message: "Method not found: Explode", data: [{ "@type": STRUCT, value: { method: "Explode" } }] });
    const v03 = await rpc(router.url, "Explode", {});
    expect(v03.error).toEqual({ code: C.METHOD_NOT_FOUND, message: "Method not found: Explode", data: { method: "Explode" } });
  });

  test("a v1.0 request that is not a valid envelope: -32600 with its facts in v1.0's array; v0.3's keeps the object", async () => {
    const v10 = await post(router.url + "/rpc", JSON.stringify({ jsonrpc: "1.0", id: 1, method: "GetTask", params: { id: "x" } }));
    expect(v10.body.error).toMatchObject({ code: C.INVALID_REQUEST, data: [{ "@type": STRUCT, value: { field: "jsonrpc" } }] });
    const v03 = await post(router.url + "/rpc", JSON.stringify({ jsonrpc: "1.0", id: 1, method: "tasks/get", params: { id: "x" } }));
    expect(v03.body.error).toMatchObject({ code: C.INVALID_REQUEST, data: { field: "jsonrpc" } });
  });

  test("the JSON-RPC face's own parse error is unchanged", async () => {
    const r = await post(router.url + "/rpc", "{not json", { "A2A-Version": "1.0" });
    expect(r.body.error).toEqual({ code: C.PARSE_ERROR, message: "Parse error: the body is not valid JSON" });
  });
});

test("the hub: every reason has a hub code; a TaskError reaches the agent with its meaning, anything else generically", () => {
  expect(Object.keys(HUB_REASON_CODES).sort()).toEqual([...TASK_ERROR_REASONS].sort());
  for (const reason of TASK_ERROR_REASONS) {
    const refusal = toHubRefusal(new TaskError(reason, `the ${reason} case`, { field: "artifact.parts" }));
    expect(refusal.toJSON()).toEqual({ code: HUB_REASON_CODES[reason], message: `the ${reason} case`, data: { field: "artifact.parts" } });
  }
  expect(HUB_REASON_CODES["invalid-params"]).toBe(HUB_ERROR_CODES.INVALID_PARAMS);
  expect(toHubRefusal(new TypeError("x is not a function")).toJSON()).toEqual({
    code: HUB_ERROR_CODES.INTERNAL_ERROR,
    message: "Internal error: the router could not complete the request",
  });
});
