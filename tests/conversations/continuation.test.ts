import { afterAll, beforeAll, describe, expect, test } from "@jest/globals";
import { randomUUID } from "node:crypto";
import { TaskState, type StreamResponse, type Task } from "@a2a-js/sdk";
import { TaskNotFoundError, UnsupportedOperationError } from "@a2a-js/sdk/errors";
import { Client, ClientFactory, ClientFactoryOptions, RestTransportFactory } from "@a2a-js/sdk/client";
import { LegacyJsonRpcTransport } from "@a2a-js/sdk/compat/v0_3/client";
import type { RunningRouter } from "../../router/index.js";
import { testRouter } from "../helpers/router.js";
import { openStream, rpc, type Json, type SseEvent } from "../helpers/rpc.js";
import { collect, sdkMessage, sdkText } from "../interop/helpers.js";
import { WebhookReceiver } from "../push/webhook.js";
import { askerAgent } from "./asker.js";

/**
 * CONTRACT 14, asking back: a turn ends input-required, the next message continues the same task as a new
 * turn (v0.1 by its id; v0.3, v1.0 and REST by taskId, or by the contextId of the task waiting for input),
 * with its log, history and subscriptions going on across the turns. Real routers, real clients.
 */

let router: RunningRouter;
let secured: RunningRouter;
const PATH = "/agents/asker";

beforeAll(async () => {
  router = await testRouter({ hostedAgents: [askerAgent()], eliza: false });
  secured = await testRouter({ hostedAgents: [askerAgent()], eliza: false, config: { apiKeys: ["k1", "k2"] } });
});

afterAll(async () => {
  await router.close();
  await secured.close();
});

const v03Message = (text: string, ids: { taskId?: string; contextId?: string } = {}) => ({
  message: { kind: "message", messageId: randomUUID(), role: "user", parts: [{ kind: "text", text }], ...ids },
});

function texts(history: Json[] | undefined): string[] {
  return (history ?? []).map((m) => `${m.role}:${(m.parts ?? []).map((p: Json) => p.text ?? "").join("")}`);
}

describe("v0.1: the same task id continues the task", () => {
  test("tasks/send asks, tasks/send with that id answers; history holds both turns; a finished task is refused", async () => {
    const id = randomUUID();
    const first = await rpc(router.url, "tasks/send", { id, message: { role: "user", parts: [{ type: "text", text: "book" }] } }, { path: PATH });
    expect(first.result.status.state).toBe("input-required");
    expect(first.result.status.message.parts[0].text).toBe("Where from?");
    const second = await rpc(router.url, "tasks/send", { id, message: { role: "user", parts: [{ type: "text", text: "London" }] } }, { path: PATH });
    expect(second.result).toMatchObject({ id, sessionId: first.result.sessionId, status: { state: "completed" } });
    expect(second.result.status.message.parts[0].text).toBe("Booked from London.");
    const got = await rpc(router.url, "tasks/get", { id, historyLength: 10 }, { path: PATH });
    expect(texts(got.result.history)).toEqual(["user:book", "agent:Where from?", "user:London", "agent:Booked from London."]);
    const again = await rpc(router.url, "tasks/send", { id, message: { role: "user", parts: [{ type: "text", text: "Paris" }] } }, { path: PATH });
    expect(again.error).toMatchObject({ code: -32004 });
    expect(again.error.message).toContain("completed");
  });

  test("tasks/sendSubscribe with the same id streams the continuation, its seqs going on from the first turn's", async () => {
    const id = randomUUID();
    const first = await (
      await openStream(router.url, "tasks/sendSubscribe", { id, message: { role: "user", parts: [{ type: "text", text: "book" }] } }, { path: PATH })
    ).all();
    expect(first.at(-1)!.data.result).toMatchObject({ status: { state: "input-required" }, final: true });
    const second = await (
      await openStream(router.url, "tasks/sendSubscribe", { id, message: { role: "user", parts: [{ type: "text", text: "Oslo" }] } }, { path: PATH })
    ).all();
    expect(second.at(-1)!.data.result).toMatchObject({ status: { state: "completed" }, final: true });
    const seqs = [...first, ...second].filter((e) => e.id !== undefined).map((e) => Number(e.id));
    expect(seqs).toEqual(seqs.map((_, i) => seqs[0]! + i));
  });
});

describe("v0.3 and v1.0: taskId or contextId continues the task", () => {
  async function v1Client(): Promise<Client> {
    return new ClientFactory().createFromUrl(`${router.url}${PATH}/`);
  }
  async function v03Client(): Promise<Client> {
    const card = await (await fetch(`${router.url}${PATH}/.well-known/agent-card.json`)).json();
    return new Client(new LegacyJsonRpcTransport({ endpoint: `${router.url}${PATH}` }), card as never);
  }
  async function restClient(): Promise<Client> {
    const options = ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
      transports: [new RestTransportFactory()],
      preferredTransports: ["HTTP+JSON"],
    });
    return new ClientFactory(options).createFromUrl(`${router.url}${PATH}/`);
  }
  const clients: Array<[string, () => Promise<Client>]> = [
    ["v0.3 JSON-RPC", v03Client],
    ["v1.0 JSON-RPC", v1Client],
    ["v1.0 REST", restClient],
  ];
  const send = (text: string, extra: Parameters<typeof sdkMessage>[1] = {}) => ({
    tenant: "",
    message: sdkMessage(text, extra),
    configuration: undefined,
    metadata: undefined,
  });

  test.each(clients)("%s: by taskId, then a finished task is refused", async (_, make) => {
    const client = await make();
    const asked = (await client.sendMessage(send("book"))) as Task;
    expect(asked.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    expect(sdkText(asked.status?.message?.parts)).toBe("Where from?");
    const done = (await client.sendMessage(send("London", { taskId: asked.id }))) as Task;
    expect(done.id).toBe(asked.id);
    expect(done.contextId).toBe(asked.contextId);
    expect(done.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(sdkText(done.status?.message?.parts)).toBe("Booked from London.");
    const got = await client.getTask({ tenant: "", id: asked.id, historyLength: 10 });
    expect(got.history.map((m) => sdkText(m.parts))).toEqual(["book", "Where from?", "London", "Booked from London."]);
    await expect(client.sendMessage(send("Paris", { taskId: asked.id }))).rejects.toBeInstanceOf(UnsupportedOperationError);
  });

  test.each(clients)("%s: by contextId alone, the context's task waiting for input", async (_, make) => {
    const client = await make();
    const asked = (await client.sendMessage(send("book"))) as Task;
    expect(asked.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    const done = (await client.sendMessage(send("Rome", { contextId: asked.contextId }))) as Task;
    expect(done.id).toBe(asked.id);
    expect(sdkText(done.status?.message?.parts)).toBe("Booked from Rome.");
    // Nothing waits in that context now: the next message there starts a new task.
    const next = (await client.sendMessage(send("book", { contextId: asked.contextId }))) as Task;
    expect(next.id).not.toBe(asked.id);
    expect(next.contextId).toBe(asked.contextId);
    expect(next.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
  });

  test.each(clients)("%s: a subscription to a task waiting for input carries the continuation to the task's end", async (_, make) => {
    const client = await make();
    const asked = (await client.sendMessage(send("book"))) as Task;
    const subscription = client.resubscribeTask({ tenant: "", id: asked.id });
    const opening = await subscription.next();
    const value = opening.value as StreamResponse;
    const openingState =
      value.payload?.$case === "task"
        ? value.payload.value.status?.state
        : value.payload?.$case === "statusUpdate"
          ? value.payload.value.status?.state
          : undefined;
    expect(openingState).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    const rest = collect({ [Symbol.asyncIterator]: () => subscription });
    await client.sendMessage(send("Lima", { taskId: asked.id }));
    const events = await rest;
    const last = events.at(-1)!;
    expect(last.payload?.$case).toBe("statusUpdate");
    if (last.payload?.$case !== "statusUpdate") return;
    expect(last.payload.value.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(sdkText(last.payload.value.status?.message?.parts)).toBe("Booked from Lima.");
  });
});

describe("resubscribe across turns", () => {
  test("Last-Event-ID: exactly the events after it, through the question, the continuation, to the task's end", async () => {
    const first = await (await openStream(router.url, "message/stream", v03Message("book"), { path: PATH })).all();
    const opening = first[0]!.data.result;
    const taskId = (opening.kind === "task" ? opening.id : opening.taskId) as string;
    const firstSeqs = first.filter((e) => e.id !== undefined).map((e) => Number(e.id));
    expect(first.at(-1)!.data.result).toMatchObject({ kind: "status-update", status: { state: "input-required" }, final: true });
    const from = firstSeqs[0]!;
    const resumed = await openStream(router.url, "tasks/resubscribe", { id: taskId }, { path: PATH, headers: { "last-event-id": String(from) } });
    const got: SseEvent[] = [];
    while (got.at(-1)?.data.result?.status?.state !== "input-required") got.push((await resumed.next())!);
    // The stream stays open past the question; the continuation's events follow on it.
    const continued = await rpc(router.url, "message/send", v03Message("Quito", { taskId }), { path: PATH });
    expect(continued.result.status.state).toBe("completed");
    got.push(...(await resumed.all()));
    const seqs = got.map((e) => Number(e.id));
    const task = await rpc(router.url, "tasks/get", { id: taskId }, { path: PATH });
    expect(seqs).toEqual(Array.from({ length: seqs.length }, (_, i) => from + 1 + i));
    expect(got.at(-1)!.data.result).toMatchObject({ kind: "status-update", status: { state: "completed" }, final: true });
    expect(got.some((e) => e.data.result?.status?.message?.parts?.[0]?.text === "Booked from Quito.")).toBe(true);
    expect(seqs.at(-1)).toBe(Number(got.at(-1)!.id));
    expect(task.result.status.state).toBe("completed");
  });

  test("a subscription to a waiting task ends when the task is canceled", async () => {
    const asked = await rpc(router.url, "message/send", v03Message("book"), { path: PATH });
    const taskId = asked.result.id as string;
    const resumed = await openStream(router.url, "tasks/resubscribe", { id: taskId }, { path: PATH });
    const opening = await resumed.next();
    expect(opening!.data.result).toMatchObject({ status: { state: "input-required" }, final: false });
    const canceled = await rpc(router.url, "tasks/cancel", { id: taskId }, { path: PATH });
    expect(canceled.result.status.state).toBe("canceled");
    const rest = await resumed.all();
    expect(rest.at(-1)!.data.result).toMatchObject({ status: { state: "canceled" }, final: true });
  });
});

describe("ownership", () => {
  test("another API key cannot continue the task, by taskId or by contextId", async () => {
    const k1 = { authorization: "Bearer k1" };
    const k2 = { authorization: "Bearer k2" };
    const asked = await rpc(secured.url, "message/send", v03Message("book"), { path: PATH, headers: k1 });
    const { id: taskId, contextId } = asked.result;
    expect(asked.result.status.state).toBe("input-required");
    const byId = await rpc(secured.url, "message/send", v03Message("London", { taskId }), { path: PATH, headers: k2 });
    expect(byId.error).toMatchObject({ code: -32001 });
    // k2 in k1's context: no task of k2's waits there, so k2 starts its own.
    const byContext = await rpc(secured.url, "message/send", v03Message("London", { contextId }), { path: PATH, headers: k2 });
    expect(byContext.result.id).not.toBe(taskId);
    expect(byContext.result.status.state).toBe("input-required");
    const own = await rpc(secured.url, "message/send", v03Message("Berlin", { contextId }), { path: PATH, headers: k1 });
    expect(own.result).toMatchObject({ id: taskId, status: { state: "completed" } });
  });
});

test("a v1.0 continuation of an unknown task is TaskNotFoundError", async () => {
  const client = await new ClientFactory().createFromUrl(`${router.url}${PATH}/`);
  await expect(
    client.sendMessage({ tenant: "", message: sdkMessage("x", { taskId: "no-such-task" }), configuration: undefined, metadata: undefined }),
  ).rejects.toBeInstanceOf(TaskNotFoundError);
});

describe("push notifications", () => {
  test("a config given with the first turn gets both turns' events, in order", async () => {
    const hooks = await new WebhookReceiver().start();
    try {
      const id = randomUUID();
      const push = { url: `${hooks.url}/turns`, token: "t" };
      const first = await rpc(
        router.url,
        "tasks/send",
        { id, message: { role: "user", parts: [{ type: "text", text: "book" }] }, pushNotification: push },
        { path: PATH },
      );
      expect(first.result.status.state).toBe("input-required");
      await rpc(router.url, "tasks/send", { id, message: { role: "user", parts: [{ type: "text", text: "Doha" }] } }, { path: PATH });
      const got = await hooks.waitFor("/turns", 5);
      expect(got.map((d) => [d.body.id, d.body.status?.state ?? "artifact", d.body.final])).toEqual([
        [id, "working", false],
        [id, "input-required", true],
        [id, "working", false],
        [id, "artifact", undefined],
        [id, "completed", true],
      ]);
    } finally {
      await hooks.stop();
    }
  });
});
