/**
 * A retry never runs a turn twice (CONTRACT 14): the `openai` client with its default retries against a hub
 * agent that fails and a turn that is canceled, `Idempotency-Key` on the chat, JSON-RPC and REST faces (a
 * finished turn answered again, a running one streamed from its start, another body refused), and A2A
 * `messageId` dedupe in v0.3 and v1.0. Each test counts how often its agent ran.
 */
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, test } from "@jest/globals";
import OpenAI, { APIError } from "openai";
import type { RunningRouter } from "../../router/index.js";
import { agentText } from "../../router/core/model.js";
import { scriptedAgent } from "../helpers/agents.js";
import { openStream, post, rpc, type SseEvent } from "../helpers/rpc.js";
import { testRouter } from "../helpers/router.js";
import { until } from "../helpers/until.js";
import { RawAgent, text } from "../helpers/ws-agent.js";

let router: RunningRouter;
/** Runs of the hosted agent "counted", and the gate its runs wait on when told "wait". */
let runs = 0;
let openGate!: () => void;
let gate = new Promise<void>((r) => (openGate = r));

/** Answers "you said: TEXT" after a working status; a message "wait" waits for the gate first. */
const counted = scriptedAgent("counted", async function* (ctx) {
  runs++;
  const said = ctx.message.parts.map((p) => (p.kind === "text" ? p.text : "")).join("");
  yield { kind: "status", status: { state: "working", message: agentText("thinking") }, final: false };
  if (said === "wait") await gate;
  yield { kind: "status", status: { state: "completed", message: agentText(`you said: ${said}`) }, final: true };
});

beforeAll(async () => {
  router = await testRouter({ eliza: false, hostedAgents: [counted] });
});

afterAll(async () => {
  openGate();
  await router.close();
});

const completions = () => `${router.url}/v1/chat/completions`;

/** A raw hub agent `name` that counts its task.execute frames and answers each one with `answer` (or nothing). */
async function hubAgent(name: string, answer?: "fail") {
  const agent = new RawAgent(router.url);
  await agent.register(name);
  const executed: string[] = [];
  agent.ws.on("message", (data) => {
    const f = JSON.parse(String(data)) as { method?: string; params?: { id: string } };
    if (f.method !== "task.execute") return;
    executed.push(f.params!.id);
    if (answer === "fail") void agent.request("task.complete", { task_id: f.params!.id, status: { state: "failed", message: text("the agent broke") } });
  });
  return { agent, executed };
}

describe("the openai client with its default retries", () => {
  test("a hub agent that fails runs once: 502 agent_failed with x-should-retry: false, no retry", async () => {
    const { agent, executed } = await hubAgent("breaks", "fail");
    try {
      const client = new OpenAI({ baseURL: `${router.url}/v1`, apiKey: "unused" });
      const err = await client.chat.completions.create({ model: "breaks", messages: [{ role: "user", content: "go" }] }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(APIError);
      expect(err).toMatchObject({ status: 502, code: "agent_failed" });
      expect((err as APIError).headers?.get("x-should-retry")).toBe("false");
      expect(executed).toHaveLength(1);
      const tasks = await rpc(router.url, "ListTasks", { pageSize: 100 }, { headers: { "A2A-Version": "1.0" } });
      expect((tasks.result.tasks as Array<{ id: string }>).filter((t) => executed.includes(t.id))).toHaveLength(1);
    } finally {
      await agent.close();
    }
  });

  test("a turn canceled through /api/chat/{id}/cancel is not run again: 409 canceled, one run", async () => {
    const { agent, executed } = await hubAgent("slow");
    try {
      const session = `s-${randomUUID()}`;
      const client = new OpenAI({ baseURL: `${router.url}/v1`, apiKey: "unused", defaultHeaders: { "X-Session-Id": session } });
      const answer = client.chat.completions.create({ model: "slow", messages: [{ role: "user", content: "take your time" }] }).catch((e: unknown) => e);
      await until(() => executed.length === 1);
      const canceled = await fetch(`${router.url}/api/chat/${session}/cancel`, { method: "POST" });
      expect(await canceled.json()).toMatchObject({ state: "canceled" });
      const err = await answer;
      expect(err).toMatchObject({ status: 409, code: "canceled" });
      expect((err as APIError).headers?.get("x-should-retry")).toBe("false");
      expect(executed).toHaveLength(1);
    } finally {
      await agent.close();
    }
  });
});

describe("Idempotency-Key", () => {
  test("chat completions: a retry of a finished turn answers it again, the same task, without running it", async () => {
    const before = runs;
    const key = randomUUID();
    const body = JSON.stringify({ model: "counted", messages: [{ role: "user", content: "once" }] });
    const first = await post(completions(), body, { "idempotency-key": key });
    const again = await post(completions(), body, { "idempotency-key": key });
    expect(first.status).toBe(200);
    expect(again.status).toBe(200);
    expect(again.body.choices[0].message.content).toBe("you said: once");
    expect(again.headers.get("x-task-id")).toBe(first.headers.get("x-task-id"));
    expect(again.body.a2a).toEqual(first.body.a2a);
    // A streamed retry of the same body gets the same turn as a stream.
    const streamed = await fetch(completions(), { method: "POST", headers: { "idempotency-key": key }, body });
    expect(streamed.headers.get("x-task-id")).toBe(first.headers.get("x-task-id"));
    expect(runs - before).toBe(1);
    // Another key is another turn.
    const other = await post(completions(), body, { "idempotency-key": randomUUID() });
    expect(other.headers.get("x-task-id")).not.toBe(first.headers.get("x-task-id"));
    expect(runs - before).toBe(2);
  });

  test("a retry while the turn runs streams that turn from its start (JSON-RPC message/stream), one run", async () => {
    gate = new Promise<void>((r) => (openGate = r));
    const before = runs;
    const key = randomUUID();
    const message = { kind: "message", role: "user", messageId: randomUUID(), parts: [{ kind: "text", text: "wait" }] };
    const params = { message, metadata: { agent: "counted" } };
    const first = await openStream(router.url, "message/stream", params, { headers: { "idempotency-key": key } });
    const opened = await first.next();
    const taskId = opened!.data.result.taskId ?? opened!.data.result.id;
    await until(() => runs - before === 1);
    // The retry renumbers its JSON-RPC id: the key is compared with the request without it.
    const retry = await openStream(router.url, "message/stream", params, { headers: { "idempotency-key": key }, id: "retry-2" });
    openGate();
    const [rest, replay] = await Promise.all([first.all(), retry.all()]);
    const texts = (events: SseEvent[]) => events.map((e) => e.data.result.status?.message?.parts?.[0]?.text).filter((t) => t !== undefined);
    expect(replay.every((e) => (e.data.result.taskId ?? e.data.result.id) === taskId)).toBe(true);
    expect(texts(replay)).toEqual(["thinking", "you said: wait"]);
    expect(texts([opened!, ...rest])).toEqual(["thinking", "you said: wait"]);
    expect(runs - before).toBe(1);
  });

  test("the same key with another body is refused: 409 on the chat and REST faces, -32602 naming Idempotency-Key on JSON-RPC", async () => {
    const key = randomUUID();
    const ask = (content: string) => JSON.stringify({ model: "counted", messages: [{ role: "user", content }] });
    expect((await post(completions(), ask("one"), { "idempotency-key": key })).status).toBe(200);
    const conflict = await post(completions(), ask("two"), { "idempotency-key": key });
    expect(conflict.status).toBe(409);
    expect(conflict.body.error).toMatchObject({ type: "invalid_request_error", code: "idempotency_conflict", param: "Idempotency-Key" });
    expect(conflict.headers.get("x-should-retry")).toBe("false");
    const client = new OpenAI({ baseURL: `${router.url}/v1`, apiKey: "unused" });
    const err = await client.chat.completions
      .create({ model: "counted", messages: [{ role: "user", content: "three" }] }, { headers: { "Idempotency-Key": key } })
      .catch((e: unknown) => e);
    expect(err).toMatchObject({ status: 409, code: "idempotency_conflict" });

    const rpcKey = randomUUID();
    const send = (t: string) => ({
      message: { kind: "message", role: "user", messageId: randomUUID(), parts: [{ kind: "text", text: t }] },
      metadata: { agent: "counted" },
    });
    const sent = await rpc(router.url, "message/send", send("a"), { headers: { "idempotency-key": rpcKey } });
    expect(sent.result.status.state).toBe("completed");
    const refused = await rpc(router.url, "message/send", send("b"), { headers: { "idempotency-key": rpcKey } });
    expect(refused.error).toMatchObject({ code: -32602, data: { field: "Idempotency-Key" } });
    expect(refused.error.message).toMatch(/Idempotency-Key/);

    const restKey = randomUUID();
    const rest = (t: string) =>
      post(
        `${router.url}/agents/counted/rest/message:send`,
        JSON.stringify({ message: { role: "ROLE_USER", messageId: randomUUID(), parts: [{ text: t }] } }),
        {
          "idempotency-key": restKey,
        },
      );
    const ok = await rest("x");
    expect(ok.status).toBe(200);
    const twice = await rest("y");
    expect(twice.status).toBe(409);
    expect(twice.body.error.message).toMatch(/Idempotency-Key/);
  });

  test("an empty key or one longer than 256 characters is refused naming the header; nothing runs", async () => {
    const before = runs;
    const send = { message: { kind: "message", role: "user", messageId: randomUUID(), parts: [{ kind: "text", text: "x" }] }, metadata: { agent: "counted" } };
    for (const key of ["", "k".repeat(257)]) {
      const refused = await rpc(router.url, "message/send", send, { headers: { "idempotency-key": key } });
      expect(refused.error).toMatchObject({ code: -32602, data: { field: "Idempotency-Key" } });
    }
    expect(runs).toBe(before);
  });

  test("REST message:send retried with the key answers the same task", async () => {
    const before = runs;
    const key = randomUUID();
    const body = JSON.stringify({ message: { role: "ROLE_USER", messageId: randomUUID(), parts: [{ text: "rest" }] } });
    const first = await post(`${router.url}/agents/counted/rest/message:send`, body, { "idempotency-key": key });
    const again = await post(`${router.url}/agents/counted/rest/message:send`, body, { "idempotency-key": key });
    expect(again.body.task.id).toBe(first.body.task.id);
    expect(again.body.task.status.state).toBe("TASK_STATE_COMPLETED");
    expect(runs - before).toBe(1);
  });
});

describe("messageId dedupe", () => {
  test("v0.3: a message sent again in its context answers the existing task", async () => {
    const before = runs;
    const contextId = randomUUID();
    const params = {
      message: { kind: "message", role: "user", messageId: randomUUID(), contextId, parts: [{ kind: "text", text: "hi" }] },
      metadata: { agent: "counted" },
    };
    const first = await rpc(router.url, "message/send", params);
    const again = await rpc(router.url, "message/send", params, { id: "2" });
    expect(again.result.id).toBe(first.result.id);
    expect(again.result.status.state).toBe("completed");
    // The same message id in another context is another message.
    const elsewhere = await rpc(router.url, "message/send", { ...params, message: { ...params.message, contextId: randomUUID() } });
    expect(elsewhere.result.id).not.toBe(first.result.id);
    expect(runs - before).toBe(2);
  });

  test("v1.0: SendMessage with a messageId already sent in that context answers the existing task", async () => {
    const before = runs;
    const params = {
      message: { role: "ROLE_USER", messageId: randomUUID(), contextId: randomUUID(), parts: [{ text: "hello" }] },
      metadata: { agent: "counted" },
    };
    const v10 = { headers: { "A2A-Version": "1.0" } };
    const first = await rpc(router.url, "SendMessage", params, v10);
    const again = await rpc(router.url, "SendMessage", params, v10);
    expect(again.result.task.id).toBe(first.result.task.id);
    expect(runs - before).toBe(1);
  });
});

describe("per API key", () => {
  test("another key's Idempotency-Key, messageId or conversation is never this key's: each gets its own task and session", async () => {
    const keyed = await testRouter({ eliza: false, hostedAgents: [counted], config: { apiKeys: ["k-one", "k-two"] } });
    try {
      const as = (key: string) => ({ authorization: `Bearer ${key}` });
      const idem = randomUUID();
      const body = JSON.stringify({ model: "counted", messages: [{ role: "user", content: "mine" }] });
      const one = await post(`${keyed.url}/v1/chat/completions`, body, { ...as("k-one"), "idempotency-key": idem });
      const two = await post(`${keyed.url}/v1/chat/completions`, body, { ...as("k-two"), "idempotency-key": idem });
      expect(two.status).toBe(200);
      expect(two.headers.get("x-task-id")).not.toBe(one.headers.get("x-task-id"));
      // k-two replaying k-one's conversation does not join k-one's session.
      const next = (key: string) =>
        post(
          `${keyed.url}/v1/chat/completions`,
          JSON.stringify({
            model: "counted",
            messages: [
              { role: "user", content: "mine" },
              { role: "assistant", content: "you said: mine" },
              { role: "user", content: "more" },
            ],
          }),
          as(key),
        );
      expect((await next("k-one")).headers.get("x-session-id")).toBe(one.headers.get("x-session-id"));
      expect((await next("k-two")).headers.get("x-session-id")).not.toBe(one.headers.get("x-session-id"));
      const message = { kind: "message", role: "user", messageId: randomUUID(), contextId: randomUUID(), parts: [{ kind: "text", text: "m" }] };
      const send = (key: string) => rpc(keyed.url, "message/send", { message, metadata: { agent: "counted" } }, { headers: as(key) });
      const first = await send("k-one");
      const other = await send("k-two");
      expect(other.result.id).not.toBe(first.result.id);
    } finally {
      await keyed.close();
    }
  });
});
