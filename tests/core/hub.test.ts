import { afterAll, afterEach, beforeAll, describe, expect, test } from "@jest/globals";
import type { RunningRouter } from "../../router/index.js";
import { RPC_ERROR_CODES as C } from "../../router/rpc/errors.js";
import { getJson, openStream, rpc, statusText, userMessage } from "../helpers/rpc.js";
import { testRouter } from "../helpers/router.js";
import { RawAgent, text } from "../helpers/ws-agent.js";

let router: RunningRouter;
const agents: RawAgent[] = [];
const connect = (opts?: { token?: string; query?: boolean }) => {
  const a = new RawAgent(router.url, opts);
  agents.push(a);
  return a;
};

beforeAll(async () => {
  router = await testRouter({ config: { hub: { tokens: { "tok-a": "alpha", "tok-multi": ["beta", "gamma"] }, allowAnonymous: true } } });
});
afterEach(async () => {
  await Promise.all(agents.splice(0).map((a) => a.close()));
});
afterAll(() => router.close());

describe("hub registration", () => {
  test("connection.established, then agent.register with a token", async () => {
    const a = connect({ token: "tok-a" });
    const hello = await a.waitFor((f) => f.method === "connection.established");
    expect(typeof hello.params.connection_id).toBe("string");
    const reg = await a.register("alpha");
    expect(reg.result).toEqual({ registered: true, agent_id: "alpha" });
    const list = await getJson(router.url + "/agents");
    expect(list.agents.find((x: { id: string }) => x.id === "alpha")).toMatchObject({ transport: "ws", online: true });
  });

  test("a token in the query string or in params works too; one token may own several names", async () => {
    const q = connect({ token: "tok-multi", query: true });
    expect((await q.register("beta")).result.registered).toBe(true);
    const p = connect();
    expect((await p.register("gamma", { auth_token: "tok-multi" })).result.registered).toBe(true);
  });

  test("refusals: bad token, name owned by another token, already connected, invalid name", async () => {
    const bad = connect({ token: "nope" });
    expect((await bad.register("alpha")).error.message).toMatch(/invalid token/);
    const stranger = connect();
    const owned = await stranger.register("alpha");
    expect(owned.error.message).toMatch(/owned by another token/);
    const wrong = connect({ token: "tok-a" });
    expect((await wrong.register("beta")).error.message).toMatch(/may not register agent "beta"/);
    const first = connect();
    expect((await first.register("dup-agent")).result.registered).toBe(true);
    const second = connect();
    expect((await second.register("dup-agent")).error.message).toMatch(/already connected/);
    const invalid = connect();
    const r = await invalid.register("bad name!");
    expect(r.error.code).toBe(C.INVALID_PARAMS);
    expect(r.error.data.field).toBe("agent_name");
  });

  test("a hosted agent's name cannot be taken", async () => {
    const a = connect();
    expect((await a.register("echo")).error.message).toMatch(/taken by a hosted agent/);
  });

  test("heartbeat is answered with heartbeat_ack", async () => {
    const a = connect();
    await a.register("hb-agent");
    const ack = a.nextFrame((f) => f.method === "heartbeat_ack");
    const res = await a.request("heartbeat", {});
    expect(res.result).toEqual({ ok: true });
    await ack;
  });

  test("malformed frames get a parse error and the connection stays usable", async () => {
    const a = connect();
    await a.open();
    const err = a.nextFrame((f) => f.error?.code === C.PARSE_ERROR);
    a.ws.send("{oops");
    await err;
    expect((await a.register("after-garbage")).result.registered).toBe(true);
  });
});

describe("hub tasks", () => {
  test("task.execute carries the v0.1 message, session and skill; status, artifact and complete are acked and streamed", async () => {
    const a = connect();
    await a.register("worker", { skills: [{ id: "sum", name: "sum", description: "adds" }] });
    const exec = a.nextTask();
    const stream = await openStream(router.url, "tasks/sendSubscribe", {
      id: "w-1",
      sessionId: "s-1",
      message: userMessage("2+2"),
      metadata: { agent: "worker" },
    });
    const task = await exec;
    expect(task.params).toMatchObject({
      id: "w-1",
      sessionId: "s-1",
      message: { role: "user", parts: [{ type: "text", text: "2+2" }] },
      metadata: { agent: "worker", skill: "sum" },
    });
    expect((await a.request("task.status", { task_id: "w-1", status: { state: "working", message: text("thinking") }, final: false })).result).toEqual({
      ok: true,
    });
    expect((await a.request("task.artifact", { task_id: "w-1", artifact: { name: "answer", parts: [{ type: "text", text: "4" }] } })).result).toEqual({
      ok: true,
    });
    expect((await a.request("task.complete", { task_id: "w-1", status: { state: "completed", message: text("4") }, final: true })).result).toEqual({
      ok: true,
    });
    const events = await stream.all();
    expect(events.map((e) => e.id)).toEqual(["1", "2", "3"]);
    expect(statusText(events[0]!)).toBe("thinking");
    expect(events[1]!.data.result.artifact).toMatchObject({ name: "answer", parts: [{ type: "text", text: "4" }], index: 0 });
    expect(events[2]!.data.result).toMatchObject({ status: { state: "completed" }, final: true });
  });

  test("a non-streaming agent's single task.complete reaches clients as two events, cost on the final one", async () => {
    const a = connect();
    await a.register("oneshot");
    const exec = a.nextTask();
    const sent = rpc(router.url, "tasks/send", { id: "o-1", message: userMessage("hi"), metadata: { agent: "oneshot" } });
    await exec;
    a.notify("task.complete", { task_id: "o-1", status: { state: "completed", message: text("all done") }, final: true, metadata: { cost: { usd: 0.25 } } });
    const result = (await sent).result;
    expect(result.status.state).toBe("completed");
    expect(result.metadata.cost).toEqual({ usd: 0.25 });
    const replay = await openStream(router.url, "tasks/resubscribe", { id: "o-1" }, { headers: { "last-event-id": "0" } });
    const events = await replay.all();
    expect(events.map((e) => [e.data.result.status.state, e.data.result.final])).toEqual([
      ["working", false],
      ["completed", true],
    ]);
    expect(statusText(events[0]!)).toBe("all done");
    // Both texts are the whole answer at once (CONTRACT 9): snapshots, and the cost stays on the final one.
    expect(events[0]!.data.result.metadata).toEqual({ textKind: "snapshot" });
    expect(events[1]!.data.result.metadata).toEqual({ cost: { usd: 0.25 }, textKind: "snapshot" });
    // Resubscribing to the finished task: the closing status keeps the final event's metadata.
    const snapshot = await (await openStream(router.url, "tasks/resubscribe", { id: "o-1" })).all();
    expect(snapshot[snapshot.length - 1]!.data.result).toMatchObject({ final: true, metadata: { cost: { usd: 0.25 } } });
  });

  test("updates for a task the agent does not own are refused and dropped", async () => {
    const owner = connect();
    await owner.register("owner-agent");
    const thief = connect();
    await thief.register("thief-agent");
    const exec = owner.nextTask();
    const sent = rpc(router.url, "tasks/send", { id: "own-1", message: userMessage("x"), metadata: { agent: "owner-agent" } });
    await exec;
    const refused = await thief.request("task.complete", { task_id: "own-1", status: { state: "completed", message: text("stolen") } });
    expect(refused.error.code).toBe(C.INVALID_PARAMS);
    expect(refused.error.message).toContain("not assigned to agent thief-agent");
    owner.notify("task.complete", { task_id: "own-1", status: { state: "completed", message: text("mine") } });
    expect((await sent).result.status.message.parts[0].text).toBe("mine");
  });

  test("a status that claims to end the turn in a non-final state fails the task instead of leaving it working", async () => {
    const a = connect();
    await a.register("confused");
    const exec = a.nextTask();
    const sent = rpc(router.url, "tasks/send", { id: "cf-1", message: userMessage("x"), metadata: { agent: "confused" } });
    await exec;
    a.notify("task.status", { task_id: "cf-1", status: { state: "working", message: text("done?") }, final: true });
    const r = (await sent).result;
    expect(r.status.state).toBe("failed");
    expect(r.status.message.parts[0].text).toBe('Agent confused ended its turn in state "working".');
  });

  test("a frame nested deeper than 100 levels is refused and the agent stays connected", async () => {
    const a = connect();
    await a.register("deep-agent");
    const deep = "[".repeat(5000) + "1" + "]".repeat(5000);
    const refused = a.nextFrame((f) => f.error?.code === C.PARSE_ERROR);
    a.ws.send(`{"jsonrpc":"2.0","id":"d","method":"heartbeat","params":{"deep":${deep}}}`);
    expect((await refused).error.message).toMatch(/deeper than 100 levels/);
    expect((await a.request("heartbeat", {})).result).toEqual({ ok: true });
  });

  test("an agent dropped for a frame over the size limit: its task fails saying so", async () => {
    const a = connect();
    await a.register("bigmouth");
    const exec = a.nextTask();
    const sent = rpc(router.url, "tasks/send", { id: "big-frame-1", message: userMessage("x"), metadata: { agent: "bigmouth" } });
    await exec;
    a.notify("task.status", { task_id: "big-frame-1", status: { state: "working", message: text("x".repeat(17 * 1024 * 1024)) } });
    const r = (await sent).result;
    expect(r.status.state).toBe("failed");
    expect(r.status.message.parts[0].text).toBe(
      `Agent bigmouth disconnected while the task was in flight: it sent a frame larger than ${16 * 1024 * 1024} bytes.`,
    );
  });

  test("updates before registering are refused", async () => {
    const a = connect();
    await a.open();
    const r = await a.request("task.status", { task_id: "x", status: { state: "working" } });
    expect(r.error.code).toBe(C.INVALID_REQUEST);
  });

  test("an agent that disconnects fails every task it had in flight, saying so", async () => {
    const a = connect();
    await a.register("flaky");
    const execs = [a.nextTask()];
    const s1 = await openStream(router.url, "tasks/sendSubscribe", { id: "f-1", message: userMessage("1"), metadata: { agent: "flaky" } });
    await execs[0];
    const exec2 = a.nextTask();
    const s2 = await openStream(router.url, "tasks/sendSubscribe", { id: "f-2", message: userMessage("2"), metadata: { agent: "flaky" } });
    await exec2;
    a.notify("task.status", { task_id: "f-1", status: { state: "working", message: text("half") } });
    await s1.next();
    a.ws.terminate();
    const [e1, e2] = await Promise.all([s1.all(), s2.all()]);
    for (const events of [e1, e2]) {
      const last = events[events.length - 1]!;
      expect(last.data.result).toMatchObject({ status: { state: "failed" }, final: true });
      expect(statusText(last)).toMatch(/flaky disconnected/);
    }
    const listed = await getJson(router.url + "/agents");
    expect(listed.agents.find((x: { id: string }) => x.id === "flaky").online).toBe(false);
    const r = await rpc(router.url, "tasks/send", { id: "f-3", message: userMessage("3"), metadata: { agent: "flaky" } });
    expect(r.error.code).toBe(C.AGENT_UNAVAILABLE);
  });

  test("tasks/cancel reaches the agent as task.cancel and ends the task canceled", async () => {
    const a = connect();
    await a.register("cancelable");
    const exec = a.nextTask();
    const stream = await openStream(router.url, "tasks/sendSubscribe", { id: "c-1", message: userMessage("long"), metadata: { agent: "cancelable" } });
    await exec;
    const cancelFrame = a.nextFrame((f) => f.method === "task.cancel");
    const canceled = await rpc(router.url, "tasks/cancel", { id: "c-1" });
    expect(canceled.result.status.state).toBe("canceled");
    expect((await cancelFrame).params).toEqual({ task_id: "c-1" });
    const events = await stream.all();
    expect(events[events.length - 1]!.data.result).toMatchObject({ status: { state: "canceled" }, final: true });
    // The agent's late updates for a canceled task are refused.
    const late = await a.request("task.complete", { task_id: "c-1", status: { state: "completed" } });
    expect(late.error).toBeDefined();
    expect((await rpc(router.url, "tasks/cancel", { id: "c-1" })).error.code).toBe(C.TASK_NOT_CANCELABLE);
  });

  test("input-required ends the turn; a second tasks/send with the same id continues the task", async () => {
    const a = connect();
    await a.register("asker");
    let exec = a.nextTask();
    const first = rpc(router.url, "tasks/send", { id: "ir-1", message: userMessage("book"), metadata: { agent: "asker" } });
    await exec;
    a.notify("task.complete", { task_id: "ir-1", status: { state: "input-required", message: text("which day?") }, final: true });
    expect((await first).result.status.state).toBe("input-required");
    exec = a.nextTask();
    const second = rpc(router.url, "tasks/send", { id: "ir-1", message: userMessage("friday"), metadata: { agent: "asker" } });
    expect((await exec).params.message.parts[0].text).toBe("friday");
    a.notify("task.complete", { task_id: "ir-1", status: { state: "completed", message: text("booked") } });
    const done = (await second).result;
    expect(done.status.state).toBe("completed");
    const hist = await rpc(router.url, "tasks/get", { id: "ir-1", historyLength: 10 });
    expect(hist.result.history.map((m: { parts: Array<{ text: string }> }) => m.parts[0]!.text)).toEqual(["book", "which day?", "friday", "booked"]);
    // A replay from the start goes through both turns, not just to the first turn's end.
    const replay = await openStream(router.url, "tasks/resubscribe", { id: "ir-1" }, { headers: { "last-event-id": "0" } });
    const events = await replay.all();
    expect(events.map((e) => [e.id, e.data.result.status.state])).toEqual([
      ["1", "working"],
      ["2", "input-required"],
      ["3", "working"],
      ["4", "completed"],
    ]);
  });

  test("a follow-up turn that names no skill goes to the skill the task started with", async () => {
    const a = connect();
    await a.register("two-skills", {
      skills: [
        { id: "first", name: "first" },
        { id: "second", name: "second" },
      ],
    });
    let exec = a.nextTask();
    const turn1 = rpc(router.url, "tasks/send", { id: "sk-1", message: userMessage("a"), metadata: { agent: "two-skills", skill: "second" } });
    expect((await exec).params.metadata.skill).toBe("second");
    a.notify("task.complete", { task_id: "sk-1", status: { state: "input-required", message: text("more?") } });
    await turn1;
    exec = a.nextTask();
    const turn2 = rpc(router.url, "tasks/send", { id: "sk-1", message: userMessage("b") });
    expect((await exec).params.metadata.skill).toBe("second");
    a.notify("task.complete", { task_id: "sk-1", status: { state: "completed", message: text("ok") } });
    expect((await turn2).result.status.state).toBe("completed");
  });

  test("v1.0 SubscribeToTask on a task waiting for input opens with the Task and stays open until the task ends", async () => {
    const a = connect();
    await a.register("v1-asker");
    const exec = a.nextTask();
    const v1 = { "a2a-version": "1.0" };
    const sent = rpc(
      router.url,
      "SendMessage",
      { message: { role: "ROLE_USER", messageId: "m-1", parts: [{ text: "hi" }] } },
      { path: "/agents/v1-asker", headers: v1 },
    );
    const { params } = await exec;
    a.notify("task.complete", { task_id: params.id, status: { state: "input-required", message: text("and?") } });
    const task = (await sent).result.task;
    expect(task.status.state).toBe("TASK_STATE_INPUT_REQUIRED");
    const sub = await openStream(router.url, "SubscribeToTask", { id: task.id }, { path: "/agents/v1-asker", headers: v1 });
    const opening = await sub.next();
    expect(opening!.data.result.task.id).toBe(task.id);
    // CONTRACT 14 (A2A v1.0 3.1.6): the subscription carries what follows the question, here a cancel.
    const canceled = await rpc(router.url, "CancelTask", { id: task.id }, { path: "/agents/v1-asker", headers: v1 });
    expect(canceled.result.status.state).toBe("TASK_STATE_CANCELED");
    const rest = await sub.all();
    expect(rest.map((e) => e.data.result.statusUpdate?.status.state)).toEqual(["TASK_STATE_CANCELED"]);
  });

  test("an agent that answers task.execute with an error fails the task with its message at once", async () => {
    const a = connect();
    await a.register("refuser");
    const exec = a.nextTask();
    const sent = rpc(router.url, "tasks/send", { id: "ref-1", message: userMessage("x"), metadata: { agent: "refuser" } });
    const request = await exec;
    a.ws.send(JSON.stringify({ jsonrpc: "2.0", id: request.id, error: { code: -32000, message: "I am overloaded" } }));
    const r = (await sent).result;
    expect(r.status.state).toBe("failed");
    expect(r.status.message.parts[0].text).toBe("Agent refuser refused the task: I am overloaded");
  });
});

describe("hub liveness", () => {
  let quick: RunningRouter;
  beforeAll(async () => {
    // Short, but with room for a loaded machine: the agent must outlive registration by a wide margin.
    // No resume grace: a dropped agent's tasks fail at once, inside the task timeout.
    quick = await testRouter({ config: { hub: { timeoutMs: 1000, resumeGraceMs: 0 }, taskTimeoutMs: 1500 } });
  });
  afterAll(() => quick.close());

  test("a turn that times out is failed and the agent is told to stop (task.cancel)", async () => {
    const a = new RawAgent(quick.url);
    await a.register("slowpoke");
    const exec = a.nextTask();
    const cancel = a.nextFrame((f) => f.method === "task.cancel");
    const sent = rpc(quick.url, "tasks/send", { id: "to-1", message: userMessage("x"), metadata: { agent: "slowpoke" } });
    await exec;
    // Keep the connection alive while the task times out.
    const beat = setInterval(() => a.notify("heartbeat", {}), 200);
    try {
      expect((await cancel).params).toEqual({ task_id: "to-1" });
      expect((await sent).result.status.message.parts[0].text).toBe("Task timed out after 1500 ms.");
    } finally {
      clearInterval(beat);
      await a.close();
    }
  });

  test("an agent that sends nothing for hub.timeoutMs is dropped and its tasks fail", async () => {
    const a = new RawAgent(quick.url);
    // Silence ws-level pongs too, as a hung process would.
    (a.ws as unknown as { pong: () => void }).pong = () => undefined;
    await a.register("sleepy");
    const exec = a.nextTask();
    const stream = await openStream(quick.url, "tasks/sendSubscribe", { id: "z-1", message: userMessage("x"), metadata: { agent: "sleepy" } });
    await exec;
    await a.closed;
    const events = await stream.all();
    expect(statusText(events[events.length - 1]!)).toMatch(/sleepy disconnected/);
  });
});

describe("hub shutdown", () => {
  test("closing the router says goodbye to agents with close code 1001", async () => {
    const r = await testRouter();
    const a = new RawAgent(r.url);
    await a.register("leaver");
    const code = new Promise<number>((resolve) => a.ws.once("close", (c) => resolve(c)));
    await r.close();
    expect(await code).toBe(1001);
  });

  test("closing the router fails the tasks in flight and sends their agent task.cancel before the goodbye", async () => {
    const r = await testRouter();
    const a = new RawAgent(r.url);
    await a.register("worker");
    const exec = a.nextTask();
    const stream = openStream(r.url, "tasks/sendSubscribe", { id: "busy-1", message: userMessage("x"), metadata: { agent: "worker" } });
    await exec;
    const cancel = a.nextFrame((f) => f.method === "task.cancel");
    const order: string[] = [];
    void cancel.then(() => order.push("task.cancel"));
    const code = new Promise<number>((resolve) => a.ws.once("close", (c) => resolve(order.push(`close ${c}`))));
    await r.close();
    expect((await cancel).params).toEqual({ task_id: "busy-1" });
    await code;
    expect(order).toEqual(["task.cancel", "close 1001"]);
    const events = await (await stream).all();
    expect(events.at(-1)!.data.result).toMatchObject({ final: true, status: { state: "failed" } });
    expect(statusText(events.at(-1)!)).toMatch(/router shut down/);
  });
});
