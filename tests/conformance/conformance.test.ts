import { afterAll, beforeAll, describe, expect, test } from "@jest/globals";
import type { RunningRouter } from "../../router/index.js";
import { SchemaRegistry } from "../../router/schema/validator.js";
import { getJson, openStream, post, rpc, type Json } from "../helpers/rpc.js";
import { testRouter } from "../helpers/router.js";
import { protoMessages, unknownMembers } from "./proto-json.js";

/**
 * A2A conformance as the official TCK (a2a-tck) checks it, each fault of issue 27 both ways: what is refused
 * and what still works next to it. The TCK run itself is documented in docs/conformance.md.
 */

let router: RunningRouter;
const schemas = new SchemaRegistry();
const V1 = { "A2A-Version": "1.0" };

/** An error's facts: v1.0 carries them in its ErrorInfo's metadata, v0.1/v0.3 as the `data` object. */
const facts = (error: { data?: unknown }): unknown =>
  Array.isArray(error.data) ? (error.data[0] as { metadata?: unknown } | undefined)?.metadata : error.data;

beforeAll(async () => {
  router = await testRouter();
});

afterAll(async () => {
  await router.close();
});

const v10Message = (text: string, extra: Json = {}) => ({ messageId: `m-${text}`, role: "ROLE_USER", parts: [{ text }], ...extra });

async function rest(path: string, init: { method?: string; body?: unknown; headers?: Record<string, string> } = {}): Promise<{ status: number; body: Json }> {
  const res = await fetch(`${router.url}/agents/echo/rest${path}`, {
    method: init.method ?? (init.body === undefined ? "GET" : "POST"),
    headers: { "content-type": "application/json", ...init.headers },
    ...(init.body !== undefined && { body: JSON.stringify(init.body) }),
  });
  return { status: res.status, body: (await res.json()) as Json };
}

async function completedTask(): Promise<string> {
  const r = await rpc(router.url, "SendMessage", { message: v10Message("setup") }, { path: "/agents/echo", headers: V1 });
  return r.result.task.id as string;
}

describe("A2A-Version: every binding refuses a version the router does not speak", () => {
  test("REST: 400 with a google.rpc.Status whose ErrorInfo says VERSION_NOT_SUPPORTED, header or query parameter", async () => {
    const bad = await rest("/message:send", { body: { message: v10Message("v") }, headers: { "A2A-Version": "99.0" } });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatchObject({ code: 400, status: "FAILED_PRECONDITION" });
    expect(bad.body.error.details[0]).toMatchObject({
      "@type": "type.googleapis.com/google.rpc.ErrorInfo",
      reason: "VERSION_NOT_SUPPORTED",
      domain: "a2a-protocol.org",
    });
    const query = await rest(`/tasks/${await completedTask()}?A2A-Version=99.0`);
    expect(query.status).toBe(400);
    expect(query.body.error.details[0].reason).toBe("VERSION_NOT_SUPPORTED");
  });

  test("REST: 1.0, a patch version, and no header at all are served", async () => {
    for (const headers of [V1, { "A2A-Version": "1.0.1" }, {}]) {
      const ok = await rest("/message:send", { body: { message: v10Message("ok") }, headers });
      expect(ok.status).toBe(200);
      expect(ok.body.task.status.state).toBe("TASK_STATE_COMPLETED");
    }
  });

  test("JSON-RPC: the version-not-supported error (-32009) at /rpc and at an agent, in every dialect", async () => {
    for (const [method, path] of [
      ["SendMessage", "/agents/echo"],
      ["message/send", "/rpc"],
      ["tasks/get", "/agents/echo"],
    ] as const) {
      const r = await rpc(router.url, method, {}, { path, headers: { "A2A-Version": "99.0" } });
      expect(r.error.code).toBe(-32009);
      expect(facts(r.error)).toMatchObject({ version: "99.0" });
    }
    const ok = await rpc(router.url, "SendMessage", { message: v10Message("fine") }, { path: "/agents/echo", headers: V1 });
    expect(ok.result.task.status.state).toBe("TASK_STATE_COMPLETED");
  });
});

describe("cards: the v1.0 shape for a v1.0 client, every generation's members for the others", () => {
  test("the proto reader knows the AgentCard's fields from the proto itself", () => {
    const card = protoMessages().get("AgentCard")!;
    expect(card.has("supportedInterfaces") && card.has("supported_interfaces")).toBe(true);
    expect(card.has("url")).toBe(false);
  });

  test("asked for in v1.0 (header or query parameter), a card holds only members the proto's AgentCard defines", async () => {
    for (const path of ["/agents/echo/.well-known/agent-card.json", "/.well-known/agent-card.json", "/agents/echo/.well-known/agent.json"]) {
      const card = await getJson(`${router.url}${path}`, V1);
      expect(unknownMembers(card, "AgentCard")).toEqual([]);
      expect(card.supportedInterfaces.length).toBeGreaterThan(0);
      expect(card.capabilities).toEqual({ streaming: true, pushNotifications: true, extendedAgentCard: false });
    }
    expect(unknownMembers(await getJson(`${router.url}/agents/echo/.well-known/agent-card.json?A2A-Version=1.0`), "AgentCard")).toEqual([]);
  });

  test("with API keys, the v1.0 card declares them in the proto's SecurityScheme shape", async () => {
    const secured = await testRouter({ config: { apiKeys: ["k1"] } });
    try {
      const card = await getJson(`${secured.url}/agents/echo/.well-known/agent-card.json`, V1);
      expect(unknownMembers(card, "AgentCard")).toEqual([]);
      expect(card.securitySchemes.bearer).toEqual({ httpAuthSecurityScheme: { scheme: "bearer", description: expect.any(String) } });
      expect(card.securitySchemes.apiKey.apiKeySecurityScheme).toMatchObject({ location: "header", name: "X-API-Key" });
      expect(card.capabilities.extendedAgentCard).toBe(true);
    } finally {
      await secured.close();
    }
  });

  test("a client naming no version (0.3 per spec 3.6) or 0.3 gets the v0.3 members too, which a strict v1.0 parser refuses", async () => {
    for (const headers of [{}, { "A2A-Version": "0.3" }] as Array<Record<string, string>>) {
      const card = await getJson(`${router.url}/agents/echo/.well-known/agent-card.json`, headers);
      expect(card).toMatchObject({ url: `${router.url}/agents/echo`, protocolVersion: "0.3.0", preferredTransport: "JSONRPC" });
      expect(schemas.check("v0.3#/$defs/AgentCard", card)).toBeUndefined();
      expect(unknownMembers(card, "AgentCard")).toEqual(
        expect.arrayContaining([
          "$.url",
          "$.protocolVersion",
          "$.preferredTransport",
          "$.additionalInterfaces",
          "$.supportsAuthenticatedExtendedCard",
          "$.capabilities.stateTransitionHistory",
        ]),
      );
    }
  });

  test("cards carry ETag, Cache-Control with max-age, Last-Modified and Vary: A2A-Version; a conditional request gets 304", async () => {
    const url = `${router.url}/agents/echo/.well-known/agent-card.json`;
    const res = await fetch(url);
    expect(res.headers.get("etag")).toMatch(/^W\/".+"$/);
    expect(res.headers.get("cache-control")).toMatch(/max-age=\d+/);
    expect(new Date(res.headers.get("last-modified")!).getTime()).toBeLessThanOrEqual(Date.now());
    expect(res.headers.get("vary")).toMatch(/A2A-Version/i);
    const v1 = await fetch(url, { headers: V1 });
    expect(v1.headers.get("etag")).not.toBe(res.headers.get("etag"));
    // fetch() adds `Cache-Control: no-cache` to a conditional request unless it names its own.
    const conditional = (h: Record<string, string>) => fetch(url, { headers: { "cache-control": "max-age=0", ...h } });
    expect((await conditional({ "if-none-match": res.headers.get("etag")! })).status).toBe(304);
    expect((await conditional({ "if-modified-since": res.headers.get("last-modified")! })).status).toBe(304);
    expect((await conditional({ "if-none-match": 'W/"other"' })).status).toBe(200);
    const routerCard = await fetch(`${router.url}/.well-known/agent-card.json`);
    expect(routerCard.headers.get("cache-control")).toMatch(/max-age=\d+/);
    expect(routerCard.headers.get("last-modified")).toBeTruthy();
  });
});

describe("v1.0 requests are read in JSON names and in proto names, as ProtoJSON allows", () => {
  test("CreateTaskPushNotificationConfig with task_id (JSON-RPC), and with taskId", async () => {
    const taskId = await completedTask();
    for (const key of ["task_id", "taskId"]) {
      const r = await rpc(
        router.url,
        "CreateTaskPushNotificationConfig",
        { [key]: taskId, url: "https://example.com/hook" },
        { path: "/agents/echo", headers: V1 },
      );
      expect(r.result).toMatchObject({ taskId, url: "https://example.com/hook" });
    }
  });

  test("GetTask with history_length limits the history as historyLength does", async () => {
    const taskId = await completedTask();
    const full = await rpc(router.url, "GetTask", { id: taskId }, { path: "/agents/echo", headers: V1 });
    expect(full.result.history.length).toBeGreaterThan(1);
    for (const key of ["history_length", "historyLength"]) {
      const r = await rpc(router.url, "GetTask", { id: taskId, [key]: 1 }, { path: "/agents/echo", headers: V1 });
      expect(r.result.history).toHaveLength(1);
    }
  });

  test("REST: proto names in the body (message_id, return_immediately) and in the query (history_length)", async () => {
    const sent = await rest("/message:send", {
      body: { message: { message_id: "proto-names", role: "ROLE_USER", parts: [{ text: "p" }] }, configuration: { history_length: 1 } },
      headers: V1,
    });
    expect(sent.status).toBe(200);
    expect(sent.body.task.history).toHaveLength(1);
    const got = await rest(`/tasks/${sent.body.task.id}?history_length=1`, { headers: V1 });
    expect(got.body.history).toHaveLength(1);
  });

  test("free-form members (metadata, a data part's data) keep their keys; one field named both ways is refused", async () => {
    const r = await rpc(
      router.url,
      "SendMessage",
      { message: v10Message("meta", { metadata: { snake_key: 1 } }), metadata: { my_key: "x" } },
      { path: "/agents/echo", headers: V1 },
    );
    expect(r.result.task.history[0].metadata).toEqual({ snake_key: 1 });
    const both = await rpc(router.url, "GetTask", { id: "x", history_length: 1, historyLength: 2 }, { path: "/agents/echo", headers: V1 });
    expect(both.error).toMatchObject({ code: -32602, data: [{ reason: "INVALID_PARAMS", metadata: { field: "historyLength" } }] });
  });
});

describe("a message with no parts is refused in every dialect", () => {
  test("v0.3 message/send and message/stream, v0.1 tasks/send, v1.0 SendMessage and REST: invalid params naming message.parts", async () => {
    const calls: Array<[string, unknown, Record<string, string>]> = [
      ["message/send", { message: { kind: "message", messageId: "e1", role: "user", parts: [] } }, {}],
      ["tasks/send", { id: "empty-v01", message: { role: "user", parts: [] } }, {}],
      ["SendMessage", { message: { messageId: "e3", role: "ROLE_USER", parts: [] } }, V1],
    ];
    for (const [method, params, headers] of calls) {
      const r = await post(`${router.url}/rpc`, JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }), headers);
      expect(r.body.error.code).toBe(-32602);
      expect(facts(r.body.error)).toMatchObject({ field: "message.parts" });
    }
    // A v0.3 streaming method answers its failure as its stream's one event (spec 3.3.1).
    const [streamed] = await (await openStream(router.url, "message/stream", { message: { kind: "message", messageId: "e2", role: "user", parts: [] } })).all();
    expect(streamed!.data.error).toMatchObject({ code: -32602, data: { field: "message.parts" } });
    const viaRest = await rest("/message:send", { body: { message: { messageId: "e4", role: "ROLE_USER", parts: [] } } });
    expect(viaRest.status).toBe(400);
    expect(viaRest.body.error.message).toMatch(/message\.parts/);
  });

  test("one part is enough, in every dialect", async () => {
    const v03 = await rpc(router.url, "message/send", { message: { kind: "message", messageId: "p1", role: "user", parts: [{ kind: "text", text: "x" }] } });
    expect(v03.result.status.state).toBe("completed");
    const v01 = await rpc(router.url, "tasks/send", { id: "one-part-v01", message: { role: "user", parts: [{ type: "text", text: "x" }] } });
    expect(v01.result.status.state).toBe("completed");
  });
});

describe("a streaming method that fails before its stream opens", () => {
  test("v0.3 (and v0.1): an SSE stream whose one event is the JSON-RPC error, as spec 3.3.1 says of every streaming response", async () => {
    const res = await fetch(`${router.url}/rpc`, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "text/event-stream" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 7, method: "tasks/resubscribe", params: { id: "no-such-task" } }),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^text\/event-stream/);
    const frames = (await res.text()).split("\n\n").filter((f) => f.startsWith("data: "));
    expect(frames).toHaveLength(1);
    expect(JSON.parse(frames[0]!.slice(6))).toMatchObject({ jsonrpc: "2.0", id: 7, error: { code: -32001 } });
  });

  test("v0.3: a known task's resubscription is the task's stream", async () => {
    const started = await rpc(router.url, "message/send", {
      message: { kind: "message", messageId: "rs", role: "user", parts: [{ kind: "text", text: "x" }] },
    });
    const events = await (await openStream(router.url, "tasks/resubscribe", { id: started.result.id })).all();
    expect(events.at(-1)!.data.result).toMatchObject({ kind: "status-update", final: true });
  });

  test("v1.0: a JSON-RPC error response, and a notification still gets no answer", async () => {
    const r = await post(`${router.url}/agents/echo`, JSON.stringify({ jsonrpc: "2.0", id: 8, method: "SubscribeToTask", params: { id: "no-such-task" } }), V1);
    expect(r.headers.get("content-type")).toMatch(/^application\/json/);
    expect(r.body.error).toMatchObject({ code: -32001 });
    const note = await fetch(`${router.url}/rpc`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ jsonrpc: "2.0", method: "tasks/resubscribe", params: { id: "x" } }),
    });
    expect(note.status).toBe(204);
  });
});
