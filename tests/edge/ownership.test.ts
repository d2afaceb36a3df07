import { afterAll, beforeAll, describe, expect, test } from "@jest/globals";
import OpenAI from "openai";
import type { RunningRouter } from "../../router/index.js";
import { testRouter } from "../helpers/router.js";
import { rpc, type Json } from "../helpers/rpc.js";
import { type Gate, gatedHubAgent, until } from "../interop/helpers.js";

/**
 * Per-key task ownership and agent limits (CONTRACT 12) over real HTTP, through every face: JSON-RPC in
 * each dialect, the REST binding, the OpenAI face and the AI SDK face. Another key's task is "not found"
 * everywhere, never "forbidden", and is never changed.
 */

const ALICE = "alice-key-0123456789";
const BOB = "bob-key-0123456789";
const bearer = (key: string) => ({ authorization: `Bearer ${key}` });

let router: RunningRouter;
let hub: Awaited<ReturnType<typeof gatedHubAgent>>;
const gates = new Map<string, Gate>();

beforeAll(async () => {
  router = await testRouter({
    config: {
      apiKeys: [
        { key: ALICE, name: "alice" },
        { key: BOB, name: "bob", agents: ["echo", "gated"] },
      ],
    },
  });
  hub = await gatedHubAgent(router.url, "gated", gates);
});

afterAll(async () => {
  for (const g of gates.values()) g.open();
  await hub.close();
  await router.close();
});

const v01 = (method: string, params: unknown, key: string) => rpc(router.url, method, params, { headers: bearer(key) });
const v10 = (method: string, params: unknown, key: string) => rpc(router.url, method, params, { headers: { ...bearer(key), "a2a-version": "1.0" } });
const message = (text: string) => ({ role: "user", parts: [{ type: "text", text }] });

describe("a task belongs to the key that created it", () => {
  let taskId: string;
  let contextId: string;

  beforeAll(async () => {
    const sent = await v01("tasks/send", { id: "alice-task", sessionId: "alice-session", message: message("mine"), metadata: { agent: "echo" } }, ALICE);
    expect(sent.result.status.state).toBe("completed");
    taskId = sent.result.id;
    contextId = sent.result.sessionId;
  });

  test("JSON-RPC: get, cancel, resubscribe and push config answer -32001 to another key", async () => {
    for (const [method, params] of [
      ["tasks/get", { id: taskId }],
      ["tasks/cancel", { id: taskId }],
      ["tasks/pushNotification/get", { id: taskId }],
    ] as const) {
      const body = await v01(method, params, BOB);
      expect(`${method} ${body.error?.code}`).toBe(`${method} -32001`);
    }
    const resub = await fetch(`${router.url}/rpc`, {
      method: "POST",
      headers: { "content-type": "application/json", ...bearer(BOB) },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tasks/resubscribe", params: { id: taskId } }),
    });
    // A streaming method's failure is its stream's one event (v0.3 spec 3.3.1).
    expect(JSON.parse((await resub.text()).replace(/^data: /, "")).error.code).toBe(-32001);
    expect((await v01("tasks/get", { id: taskId }, ALICE)).result.id).toBe(taskId);
  });

  test("ListTasks shows each key its own tasks only", async () => {
    const bobs = await v10("ListTasks", { contextId }, BOB);
    expect(bobs.result.tasks).toEqual([]);
    expect(bobs.result.totalSize).toBe(0);
    const alices = await v10("ListTasks", { contextId }, ALICE);
    expect(alices.result.tasks.map((t: Json) => t.id)).toEqual([taskId]);
  });

  test("a v0.1 send with another key's task id is -32001 and changes nothing", async () => {
    const before = (await v01("tasks/get", { id: taskId, historyLength: 100 }, ALICE)).result;
    const body = await v01("tasks/send", { id: taskId, message: message("hijack"), metadata: { agent: "echo" } }, BOB);
    expect(body.error.code).toBe(-32001);
    expect((await v01("tasks/get", { id: taskId, historyLength: 100 }, ALICE)).result).toEqual(before);
  });

  test("REST: another key's task is 404 TASK_NOT_FOUND", async () => {
    const res = await fetch(`${router.url}/agents/echo/rest/tasks/${taskId}`, { headers: bearer(BOB) });
    expect(res.status).toBe(404);
    expect(((await res.json()) as Json).error.details[0].reason).toBe("TASK_NOT_FOUND");
    expect((await fetch(`${router.url}/agents/echo/rest/tasks/${taskId}`, { headers: bearer(ALICE) })).status).toBe(200);
  });
});

describe("the chat faces follow the same rules", () => {
  test("AI SDK: another key neither resumes nor stops a chat's running turn", async () => {
    const chatId = `chat-${Date.now()}`;
    const res = await fetch(`${router.url}/api/chat`, {
      method: "POST",
      headers: { "content-type": "application/json", ...bearer(ALICE) },
      body: JSON.stringify({ id: chatId, agent: "gated", messages: [{ id: "m1", role: "user", parts: [{ type: "text", text: "held" }] }] }),
    });
    expect(res.status).toBe(200);
    await until(() => gates.has("held"), "the agent to hold the turn");
    expect((await fetch(`${router.url}/api/chat/${chatId}/stream`, { headers: bearer(BOB) })).status).toBe(204);
    expect((await fetch(`${router.url}/api/chat/${chatId}/cancel`, { method: "POST", headers: bearer(BOB) })).status).toBe(204);
    const resumed = await fetch(`${router.url}/api/chat/${chatId}/stream`, { headers: bearer(ALICE) });
    expect(resumed.status).toBe(200);
    gates.get("held")!.open();
    await resumed.text();
    await res.text();
  });

  test("OpenAI: a key limited to some agents lists and reaches only those", async () => {
    const bob = new OpenAI({ baseURL: `${router.url}/v1`, apiKey: BOB, maxRetries: 0 });
    const models = (await bob.models.list()).data.map((m) => m.id).sort();
    expect(models).toEqual(["echo", "gated"]);
    await expect(bob.chat.completions.create({ model: "eliza", messages: [{ role: "user", content: "hi" }] })).rejects.toMatchObject({ status: 404 });
    const alice = new OpenAI({ baseURL: `${router.url}/v1`, apiKey: ALICE, maxRetries: 0 });
    expect((await alice.models.list()).data.map((m) => m.id)).toContain("eliza");
    const reply = await bob.chat.completions.create({ model: "echo", messages: [{ role: "user", content: "hello" }] });
    expect(reply.choices[0]!.message.content).toBe("hello");
  });

  test("GET /agents names the default agent when the key may use it (the chat page pre-selects it)", async () => {
    const list = async (key: string) => (await (await fetch(`${router.url}/agents`, { headers: bearer(key) })).json()) as Json;
    expect((await list(ALICE)).defaultAgent).toBe("eliza");
    const bobs = await list(BOB);
    expect(bobs.defaultAgent).toBeUndefined();
    expect(bobs.agents.map((a: Json) => a.id).sort()).toEqual(["echo", "gated"]);
  });

  test("JSON-RPC: a key limited to some agents gets unknown agent for the others", async () => {
    const body = await v01("tasks/send", { id: `bob-${Date.now()}`, message: message("x"), metadata: { agent: "eliza" } }, BOB);
    expect(body.error).toMatchObject({ code: -32602, data: { agent: "eliza" } });
  });
});
