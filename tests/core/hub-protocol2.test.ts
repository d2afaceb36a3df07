import { afterAll, afterEach, beforeAll, describe, expect, test } from "@jest/globals";
import { randomUUID } from "node:crypto";
import type { RunningRouter } from "../../router/index.js";
import { getJson, openStream, rpc, statusText, userMessage } from "../helpers/rpc.js";
import { testRouter } from "../helpers/router.js";
import { RawAgent, text } from "../helpers/ws-agent.js";

/**
 * The hub's second protocol version (docs/hub-protocol.md), chosen at registration, next to the first one
 * served unchanged; and the first round's `progress: true` mark read as progress.
 */

let router: RunningRouter;
const agents: RawAgent[] = [];

beforeAll(async () => {
  router = await testRouter({ eliza: false, config: { hub: { allowAnonymous: true } } });
});
afterEach(async () => {
  await Promise.all(agents.splice(0).map((a) => a.close()));
});
afterAll(() => router.close());

async function agent(name: string, extra: Record<string, unknown> = { protocol: 2 }): Promise<RawAgent> {
  const a = new RawAgent(router.url);
  agents.push(a);
  const reg = await a.register(name, extra);
  expect(reg.result).toMatchObject({ registered: true, agent_id: name });
  return a;
}

/** Answers a request of the hub's (task.execute) with a result or an error. */
function answer(a: RawAgent, id: string, outcome: { result: unknown } | { error: { code: number; message: string } }): void {
  a.ws.send(JSON.stringify({ jsonrpc: "2.0", id, ...outcome }));
}

const V10 = { "A2A-Version": "1.0" };
const agentPath = (name: string) => ({ path: `/agents/${name}` });

describe("protocol 1 compatibility", () => {
  test("a status marked `progress: true` without textKind is progress, not a chunk of the answer", async () => {
    const a = await agent("old-progress", {});
    const exec = a.nextTask();
    const stream = await openStream(router.url, "tasks/sendSubscribe", { id: "op-1", message: userMessage("go"), metadata: { agent: "old-progress" } });
    await exec;
    a.notify("task.status", { task_id: "op-1", status: { state: "working", message: text("looking it up") }, metadata: { progress: true } });
    a.notify("task.status", { task_id: "op-1", status: { state: "working", message: text("4") } });
    a.notify("task.complete", { task_id: "op-1", status: { state: "completed" }, final: true });
    const events = await stream.all();
    expect(events.map((e) => e.data.result.metadata?.textKind)).toEqual(["progress", "delta", undefined]);
    expect(events[0]!.data.result.metadata.progress).toBe(true);
    // The CLI's reply model (CONTRACT 9): the answer is the delta alone.
    const task = await rpc(router.url, "tasks/get", { id: "op-1" });
    expect(task.result.status.state).toBe("completed");
  });

  test("a protocol 1 agent still gets the v0.1 message and no `protocol` in its registration answer", async () => {
    const a = new RawAgent(router.url);
    agents.push(a);
    expect((await a.register("still-v1")).result).toEqual({ registered: true, agent_id: "still-v1" });
    const exec = a.nextTask();
    const sent = rpc(router.url, "message/send", {
      message: { kind: "message", messageId: "m-v1", role: "user", parts: [{ kind: "text", text: "hi" }] },
      metadata: { agent: "still-v1" },
    });
    const task = await exec;
    expect(task.params.message).toEqual({ role: "user", parts: [{ type: "text", text: "hi" }] });
    a.notify("task.complete", { task_id: task.params.id, status: { state: "completed", message: text("ok") } });
    expect((await sent).result.status.state).toBe("completed");
  });
});

describe("protocol 2", () => {
  test("registration answers with the protocol; task.execute carries the whole A2A v1.0 message", async () => {
    const a = await agent("full-message");
    const exec = a.nextTask();
    const sent = rpc(
      router.url,
      "SendMessage",
      {
        message: {
          messageId: "msg-42",
          role: "ROLE_USER",
          parts: [{ text: "compare" }, { data: { n: 1 } }, { url: "https://files.example/a.pdf", mediaType: "application/pdf", filename: "a.pdf" }],
          referenceTaskIds: ["earlier-task"],
          extensions: ["https://ext.example/trace/v1"],
          metadata: { note: "kept" },
        },
      },
      { ...agentPath("full-message"), headers: V10 },
    );
    const task = await exec;
    const p = task.params;
    expect(p.message).toEqual({
      messageId: "msg-42",
      role: "ROLE_USER",
      parts: [{ text: "compare" }, { data: { n: 1 } }, { url: "https://files.example/a.pdf", mediaType: "application/pdf", filename: "a.pdf" }],
      taskId: p.id,
      contextId: p.contextId,
      referenceTaskIds: ["earlier-task"],
      extensions: ["https://ext.example/trace/v1"],
      metadata: { note: "kept" },
    });
    expect(typeof p.contextId).toBe("string");
    answer(a, task.id, { result: { accepted: true } });
    // Updates in v1.0's part model: a data part of any JSON value, an artifact named by its id.
    a.notify("task.artifact", { task_id: p.id, artifact: { artifactId: "table", parts: [{ data: [1, 2] }] } });
    a.notify("task.complete", { task_id: p.id, status: { state: "completed", message: { role: "ROLE_AGENT", parts: [{ text: "same" }] } } });
    const result = (await sent).result.task;
    expect(result.id).toBe(p.id);
    expect(result.status).toMatchObject({ state: "TASK_STATE_COMPLETED", message: { role: "ROLE_AGENT", parts: [{ text: "same" }] } });
    expect(result.artifacts).toEqual([expect.objectContaining({ artifactId: "table", parts: [{ data: [1, 2] }] })]);
  });

  test.each([
    ["v0.1", "tasks/send", (t: string) => ({ id: randomUUID(), message: userMessage(t) })],
    ["v0.3", "message/send", (t: string) => ({ message: { kind: "message", messageId: randomUUID(), role: "user", parts: [{ kind: "text", text: t }] } })],
    ["v1.0", "SendMessage", (t: string) => ({ message: { messageId: randomUUID(), role: "ROLE_USER", parts: [{ text: t }] } })],
  ])("a bare message answer is the send's answer (%s client)", async (dialect, method, params) => {
    const name = `bare-${dialect.replace(".", "")}`;
    const a = await agent(name);
    const exec = a.nextTask();
    const sent = rpc(router.url, method, params("hello"), { ...agentPath(name), headers: dialect === "v1.0" ? V10 : {} });
    const task = await exec;
    answer(a, task.id, { result: { message: { messageId: "reply-1", role: "ROLE_AGENT", parts: [{ text: "hello yourself" }] } } });
    const result = (await sent).result;
    // Where the dialect's send may answer with a Message (v0.3, v1.0), it does; v0.1 reads the completed task.
    if (dialect === "v1.0") {
      expect(result).toEqual({ message: { messageId: "reply-1", role: "ROLE_AGENT", parts: [{ text: "hello yourself" }], contextId: task.params.contextId } });
    } else if (dialect === "v0.3") {
      expect(result).toEqual({
        kind: "message",
        messageId: "reply-1",
        role: "agent",
        parts: [{ kind: "text", text: "hello yourself" }],
        contextId: task.params.contextId,
      });
    } else {
      expect(result.status).toMatchObject({ state: "completed", message: { parts: [{ type: "text", text: "hello yourself" }] } });
    }
    // The router's task holds the answer all the same (tasks/get answers in the dialect the task began in).
    const stored = (await rpc(router.url, "tasks/get", { id: task.params.id })).result;
    expect(stored.status.state).toMatch(/^(completed|TASK_STATE_COMPLETED)$/);
    expect(stored.status.message.parts[0].text).toBe("hello yourself");
    // The turn is over: a late update of the agent's is refused.
    const late = await a.request("task.status", { task_id: task.params.id, status: { state: "working", message: { parts: [{ text: "more" }] } } });
    expect(late.error.message).toMatch(/not assigned/);
  });

  test("a bare message that is not one fails the task naming the field", async () => {
    const a = await agent("bad-answer");
    const exec = a.nextTask();
    const sent = rpc(router.url, "tasks/send", { id: "ba-1", message: userMessage("x") }, agentPath("bad-answer"));
    answer(a, (await exec).id, { result: { message: { role: "ROLE_AGENT", parts: [{ text: 5 }] } } });
    const result = (await sent).result;
    expect(result.status.state).toBe("failed");
    expect(statusText({ data: { result } })).toMatch(
      /^Agent bad-answer answered with a message the router cannot read: message\.parts\/0\/text|^Agent bad-answer answered with a message the router cannot read: .*text/,
    );
  });

  test("a rejection is the send's error (every dialect); the task is kept `rejected` with the agent's reason", async () => {
    const a = await agent("picky");
    const reason = "this agent requires the extension https://ext.example/trace/v1";
    const sends = [
      ["SendMessage", { message: { messageId: randomUUID(), role: "ROLE_USER", parts: [{ text: "x" }] } }, V10],
      ["message/send", { message: { kind: "message", messageId: randomUUID(), role: "user", parts: [{ kind: "text", text: "x" }] } }, {}],
      ["tasks/send", { id: randomUUID(), message: userMessage("x") }, {}],
    ] as const;
    for (const [method, params, headers] of sends) {
      const exec = a.nextTask();
      const sent = rpc(router.url, method, params, { ...agentPath("picky"), headers });
      const task = await exec;
      answer(a, task.id, { error: { code: -32602, message: reason } });
      const res = await sent;
      const facts = { field: "message", taskId: task.params.id };
      // v1.0 carries an error's facts in a google.rpc.ErrorInfo; v0.1/v0.3 as the data object.
      const data =
        method === "SendMessage"
          ? [{ "@type": "type.googleapis.com/google.rpc.ErrorInfo", reason: "INVALID_PARAMS", domain: "a2a-protocol.org", metadata: facts }]
          : facts;
      expect([method, res.error]).toEqual([method, { code: -32602, message: `Invalid params: agent picky rejected the request: ${reason}`, data }]);
      const kept = (await rpc(router.url, "tasks/get", { id: task.params.id })).result;
      expect(kept.status.state).toMatch(/^(rejected|TASK_STATE_REJECTED)$/);
    }
    // The v1.0 HTTP+JSON binding: the same error as an HTTP status.
    const restExec = a.nextTask();
    const rest = fetch(`${router.url}/agents/picky/rest/message:send`, {
      method: "POST",
      headers: { "content-type": "application/json", ...V10 },
      body: JSON.stringify({ message: { messageId: randomUUID(), role: "ROLE_USER", parts: [{ text: "x" }] } }),
    });
    answer(a, (await restExec).id, { error: { code: -32602, message: reason } });
    const restRes = await rest;
    expect(restRes.status).toBe(400);
    expect(JSON.stringify(await restRes.json())).toContain(`agent picky rejected the request: ${reason}`);
    // A stream has begun before the agent answers: it ends with the rejected status.
    const exec = a.nextTask();
    const stream = await openStream(router.url, "tasks/sendSubscribe", { id: "rej-s", message: userMessage("x") }, agentPath("picky"));
    answer(a, (await exec).id, { error: { code: -32602, message: reason } });
    const events = await stream.all();
    expect(events.at(-1)!.data.result).toMatchObject({ status: { state: "rejected" }, final: true });
    expect(statusText(events.at(-1)!)).toBe(reason);
  });

  test("the registered card's extensions are in the card the router serves; protocol 1 cards are served as before", async () => {
    const extension = { uri: "https://ext.example/trace/v1", description: "traces", required: true };
    await agent("with-ext", { protocol: 2, card: { capabilities: { streaming: true, extensions: [extension, { nope: 1 }] } } });
    const card = await getJson(`${router.url}/agents/with-ext/.well-known/agent-card.json`);
    expect(card.capabilities.extensions).toEqual([extension]);
    await agent("v1-ext", { card: { capabilities: { extensions: [extension] } } });
    const old = await getJson(`${router.url}/agents/v1-ext/.well-known/agent-card.json`);
    expect(old.capabilities.extensions).toBeUndefined();
  });

  test("bad registrations and parts are refused naming the field", async () => {
    const a = new RawAgent(router.url);
    agents.push(a);
    const bad = await a.register("bad-protocol", { protocol: 3 });
    expect(bad.error).toMatchObject({ code: -32602, data: { field: "protocol" } });
    const b = await agent("bad-parts");
    const exec = b.nextTask();
    const sent = rpc(router.url, "tasks/send", { id: "bp-1", message: userMessage("x") }, agentPath("bad-parts"));
    await exec;
    const refused = await b.request("task.status", {
      task_id: "bp-1",
      status: { state: "working", message: { parts: [{ type: "data", data: "not an object" }] } },
    });
    expect(refused.error).toMatchObject({ code: -32602, data: { field: "parts" } });
    b.notify("task.complete", { task_id: "bp-1", status: { state: "completed", message: { parts: [{ text: "fine" }] } } });
    expect(statusText({ data: await sent })).toBe("fine");
  });
});

describe("resuming agents name the tasks they still run", () => {
  /** An agent named `name` with task `taskId` in flight (taken, one update stored), then its link lost. */
  async function dropped(name: string, taskId: string) {
    const a = await agent(name, {});
    const exec = a.nextTask();
    const stream = await openStream(router.url, "tasks/sendSubscribe", { id: taskId, message: userMessage("go") }, { ...agentPath(name), id: "s" });
    const task = await exec;
    answer(a, task.id, { result: { accepted: true } });
    expect((await a.request("task.status", { task_id: taskId, seq: 1, status: { state: "working", message: text("first run ") } })).result).toEqual({
      ok: true,
    });
    a.ws.terminate();
    await a.closed;
    return stream;
  }

  test("a task the agent lists is not sent again; one it leaves out is, as a new run numbered from 1", async () => {
    const kept = await dropped("lister", "keep-1");
    const back = new RawAgent(router.url);
    agents.push(back);
    await back.register("lister", { running: ["keep-1"] });
    back.notify("task.complete", { task_id: "keep-1", seq: 2, status: { state: "completed", message: text("first run done") } });
    const events = await kept.all();
    expect(events.map(statusText)).toEqual(["first run ", "first run done"]);
    expect(back.frames.filter((f) => f.method === "task.execute")).toEqual([]);

    const lost = await dropped("loser", "lost-1");
    const again = new RawAgent(router.url);
    agents.push(again);
    const exec = again.nextTask();
    await again.register("loser", { running: [] });
    const resent = await exec;
    expect(resent.params.id).toBe("lost-1");
    expect((await again.request("task.status", { task_id: "lost-1", seq: 1, status: { state: "working", message: text("second run ") } })).result).toEqual({
      ok: true,
    });
    again.notify("task.complete", { task_id: "lost-1", seq: 2, status: { state: "completed", message: text("second run done") } });
    expect((await lost.all()).map(statusText)).toEqual(["first run ", "second run ", "second run done"]);
  });

  test("an agent that does not say gets again only the executes it never answered (the first protocol's rule)", async () => {
    const stream = await dropped("silent", "silent-1");
    const back = new RawAgent(router.url);
    agents.push(back);
    await back.register("silent");
    back.notify("task.complete", { task_id: "silent-1", seq: 2, status: { state: "completed", message: text("done") } });
    expect((await stream.all()).map(statusText)).toEqual(["first run ", "done"]);
    expect(back.frames.filter((f) => f.method === "task.execute")).toEqual([]);
  });
});
