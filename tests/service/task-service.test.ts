import { afterEach, describe, expect, test } from "@jest/globals";
import { AgentRegistry } from "../../router/agents/registry.js";
import { TaskEngine } from "../../router/core/engine.js";
import { TaskError, type TaskErrorReason } from "../../router/core/errors.js";
import { agentText, type StreamEvent, type SendRequest } from "../../router/core/model.js";
import { dialectByName } from "../../router/dialects/index.js";
import { silentLogger } from "../../router/observability/logger.js";
import { TaskService, type Scope } from "../../router/service/index.js";
import { MemoryStore } from "../../router/store/memory-store.js";
import { counterAgent, gatedAgent, scriptedAgent } from "../helpers/agents.js";

/** The task service over a real engine and memory store: no HTTP, no dialect, no JSON-RPC. */
function setup(store: MemoryStore = new MemoryStore(), count = 3) {
  const agents = new AgentRegistry();
  const engine = new TaskEngine({ store, agents, logger: silentLogger(), taskTimeoutMs: 30_000 });
  const service = new TaskService({ engine, agents, defaultAgent: "counter" });
  agents.set(counterAgent("counter", count));
  return { agents, engine, service };
}

const message = (text: string): SendRequest["message"] => ({ role: "user", parts: [{ kind: "text", text }] });
const request = (text: string, extra: Partial<SendRequest> = {}): SendRequest => ({ message: message(text), metadata: {}, ...extra });

async function collect(events: AsyncIterable<StreamEvent>): Promise<StreamEvent[]> {
  const out: StreamEvent[] = [];
  for await (const e of events) out.push(e);
  return out;
}

/** The reason a call failed with. */
async function reason(p: Promise<unknown>): Promise<TaskErrorReason> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(TaskError);
  return (err as TaskError).reason;
}

let engines: TaskEngine[] = [];
afterEach(async () => {
  await Promise.all(engines.map((e) => e.close()));
  engines = [];
});
function started(store?: MemoryStore, count?: number) {
  const s = setup(store, count);
  engines.push(s.engine);
  return s;
}

describe("TaskService without any transport", () => {
  test("send waits for the turn and answers with the finished task", async () => {
    const { service } = started();
    const task = await service.send(request("go"), dialectByName("v0.3"));
    expect(task.status.state).toBe("completed");
    expect(task.lastSeq).toBe(4);
    expect(task.artifacts[0]!.parts).toEqual([{ kind: "text", text: "1,2,3," }]);
  });

  test("a blocking send of a turn that ends at once is one store commit, and is answered only once it is durable", async () => {
    const store = new MemoryStore();
    const commit = store.commit.bind(store);
    const eventsPerCommit: number[] = [];
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    store.commit = async (batch) => {
      eventsPerCommit.push(batch.events.length);
      await held;
      return commit(batch);
    };
    const { service } = started(store);
    let answered = false;
    const sent = service.send(request("go"), dialectByName("v0.3")).then((task) => {
      answered = true;
      return task;
    });
    while (eventsPerCommit.length === 0) await new Promise((r) => setImmediate(r));
    for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
    expect(answered).toBe(false);
    release();
    const task = await sent;
    // The task and all four of its events, in one commit.
    expect(eventsPerCommit).toEqual([4]);
    expect(task.status.state).toBe("completed");
    expect((await store.getTask(task.id))?.lastSeq).toBe(4);
  });

  test("stream yields the turn's events in order; resubscribe from a seq yields exactly the rest", async () => {
    const { service } = started();
    const { task, events } = await service.stream(request("go"), dialectByName("v1.0"));
    const all = await collect(events);
    expect(all.map((e) => e.seq)).toEqual([1, 2, 3, 4]);
    const rest = await service.resubscribe(task.id, {}, { afterSeq: 2 });
    expect((await collect(rest.events!)).map((e) => e.seq)).toEqual([3, 4]);
    expect(await reason(service.resubscribe(task.id, {}, { afterSeq: 9 }))).toBe("invalid-params");
  });

  test("resubscribe without a seq to a finished turn has nothing live and keeps the final event's metadata", async () => {
    const { service, agents } = started();
    agents.set(
      scriptedAgent("costly", async function* () {
        yield { kind: "status", status: { state: "completed", message: agentText("ok") }, final: true, metadata: { cost: { usd: 1 } } };
      }),
    );
    const task = await service.send(request("go", { agentId: "costly" }), dialectByName("v0.3"));
    const r = await service.resubscribe(task.id);
    expect(r.events).toBeUndefined();
    expect(r.lastStatusMetadata).toMatchObject({ cost: { usd: 1 }, textKind: "snapshot" });
  });

  test("errors carry reasons: unknown task, unknown agent, unavailable agent, not cancelable, push unsupported", async () => {
    const { service, agents } = started();
    expect(await reason(service.get("nope"))).toBe("task-not-found");
    expect(await reason(service.send(request("x", { agentId: "ghost" }), dialectByName("v0.3")))).toBe("unknown-agent");
    agents.set({ ...counterAgent("offline", 1), isOnline: () => false });
    expect(await reason(service.send(request("x", { agentId: "offline" }), dialectByName("v0.3")))).toBe("agent-unavailable");
    const done = await service.send(request("x"), dialectByName("v0.3"));
    expect(await reason(service.cancel(done.id))).toBe("task-not-cancelable");
    expect(await reason(service.setPushConfig(done.id, { url: "http://127.0.0.1:1/hook" }, dialectByName("v0.1")))).toBe("push-not-supported");
    // v0.3/v1.0 clients may only name tasks that exist; v0.1 clients choose their ids.
    expect(await reason(service.send(request("x", { taskId: "mine" }), dialectByName("v1.0")))).toBe("task-not-found");
    expect((await service.send(request("x", { taskId: "mine" }), dialectByName("v0.1"))).id).toBe("mine");
  });

  test("a send that names its task reads it from the store once: the caller's checks run on the engine's read", async () => {
    const store = new MemoryStore();
    const getTask = store.getTask.bind(store);
    const reads: string[] = [];
    store.getTask = (id) => {
      reads.push(id);
      return getTask(id);
    };
    const { service } = started(store, 1);
    const alice: Scope = { caller: { principal: "alice" } };
    expect((await service.send(request("go", { taskId: "named-1" }), dialectByName("v0.1"), alice)).status.state).toBe("completed");
    expect(reads).toEqual(["named-1"]);
    // The same single read refuses what the caller may not do: another key's task, a v0.3 id that names none.
    reads.length = 0;
    expect(await reason(service.send(request("again", { taskId: "named-1" }), dialectByName("v0.1"), { caller: { principal: "bob" } }))).toBe("task-not-found");
    expect(await reason(service.send(request("new", { taskId: "named-2" }), dialectByName("v0.3"), alice))).toBe("task-not-found");
    expect(reads).toEqual(["named-1", "named-2"]);
    expect(await store.getTask("named-2")).toBeUndefined();
  });

  test("a task belongs to the key that created it: other keys get task-not-found everywhere", async () => {
    const { service, agents } = started();
    const gate = gatedAgent("gated");
    agents.set(gate.agent);
    const alice: Scope = { caller: { principal: "alice" } };
    const bob: Scope = { caller: { principal: "bob" } };
    const { task } = await service.start(request("hi", { agentId: "gated", taskId: "t-a" }), dialectByName("v0.1"), alice);
    await gate.running;
    expect(task.owner).toBe("alice");
    expect(await reason(service.get(task.id, bob))).toBe("task-not-found");
    expect(await reason(service.cancel(task.id, bob))).toBe("task-not-found");
    expect(await reason(service.resubscribe(task.id, bob))).toBe("task-not-found");
    expect(await reason(service.listPushConfigs(task.id, bob))).toBe("task-not-found");
    expect(await reason(service.runningTurn(task.contextId, bob).then((t) => t ?? Promise.reject(TaskError.taskNotFound(task.id))))).toBe("task-not-found");
    // Continuing another key's v0.1 task changes nothing.
    expect(await reason(service.send(request("again", { taskId: "t-a" }), dialectByName("v0.1"), bob))).toBe("task-not-found");
    expect((await service.list({}, bob)).tasks).toEqual([]);
    expect((await service.list({}, alice)).tasks.map((t) => t.id)).toEqual(["t-a"]);
    expect((await service.list({}, alice)).totalSize).toBe(1);
    expect((await service.runningTurn(task.contextId, alice))?.task.id).toBe("t-a");
    expect((await service.cancel(task.id, alice)).status.state).toBe("canceled");
  });

  test("a key limited to some agents sees and uses only those", async () => {
    const { service, agents } = started();
    agents.set(counterAgent("other", 1));
    const limited: Scope = { caller: { principal: "k", agents: ["other"] } };
    expect(service.listAgents(limited.caller).map((a) => a.info.id)).toEqual(["other"]);
    expect(await reason(service.send(request("x", { agentId: "counter" }), dialectByName("v0.3"), limited))).toBe("unknown-agent");
    expect((await service.send(request("x", { agentId: "other" }), dialectByName("v0.3"), limited)).status.state).toBe("completed");
  });

  test("an agent path scopes what is seen: another agent's task is not found there", async () => {
    const { service, agents } = started();
    agents.set(counterAgent("other", 1));
    const task = await service.send(request("x"), dialectByName("v0.3"));
    expect(await reason(service.get(task.id, { agentId: "other" }))).toBe("task-not-found");
    expect((await service.get(task.id, { agentId: "counter" })).id).toBe(task.id);
  });

  test("list clamps page sizes and pages with a token", async () => {
    const { service } = started();
    for (let i = 0; i < 3; i++) await service.send(request(`n${i}`), dialectByName("v1.0"));
    const first = await service.list({ pageSize: 2 });
    expect(first.tasks).toHaveLength(2);
    expect(first.totalSize).toBe(3);
    const second = await service.list({ pageSize: 2, pageToken: first.nextPageToken });
    expect(second.tasks).toHaveLength(1);
    expect(second.nextPageToken).toBe("");
    expect((await service.list({ pageSize: 0 })).pageSize).toBe(1);
    expect((await service.list({ pageSize: 1000 })).pageSize).toBe(100);
    expect(await reason(service.list({ pageToken: "garbage" }))).toBe("invalid-params");
  });

  test("runningTurn finds a session's running turn and where it started; none once it ended", async () => {
    const { service, agents } = started();
    const gate = gatedAgent("gated");
    agents.set(gate.agent);
    const { task, fromSeq } = await service.start(request("hi", { agentId: "gated", contextId: "chat-1" }), dialectByName("v0.3"));
    await gate.running;
    const running = await service.runningTurn("chat-1");
    expect(running).toEqual({ task: expect.objectContaining({ id: task.id }), fromSeq });
    const events = await service.events(task.id, running!.fromSeq);
    gate.release();
    expect((await collect(events)).map((e) => e.kind)).toEqual(["status", "artifact", "status"]);
    expect(await service.runningTurn("chat-1")).toBeUndefined();
  });
  test("a resubscription through input-required keeps a next turn that starts and ends between its reads", async () => {
    // The stream, caught up with the turn that asked, looks at the task once more before it waits for the next
    // turn; this store runs that whole next turn just before answering that look.
    class RacingStore extends MemoryStore {
      beforeRead: (() => Promise<unknown>) | undefined;
      override async getTask(id: string) {
        const run = this.beforeRead;
        this.beforeRead = undefined;
        if (run) await run();
        return super.getTask(id);
      }
    }
    const store = new RacingStore();
    const { agents, service } = started(store);
    let turns = 0;
    agents.set(
      scriptedAgent("asker", async function* () {
        turns++;
        const state = turns === 1 ? "input-required" : "completed";
        yield { kind: "status", status: { state, message: agentText(turns === 1 ? "from where?" : "booked") }, final: true };
      }),
    );
    const v01 = dialectByName("v0.1");
    const asked = await service.send(request("book"), v01, { agentId: "asker" });
    expect(asked.status.state).toBe("input-required");
    const { events } = await service.resubscribe(asked.id, {}, { afterSeq: 0 });
    store.beforeRead = () => service.send(request("from London", { taskId: asked.id }), v01, { agentId: "asker" });
    const got = await collect(events!);
    const states = got.filter((e) => e.kind === "status").map((e) => (e.kind === "status" ? e.status.state : ""));
    expect(states.at(-1)).toBe("completed");
    expect(states).toContain("input-required");
    expect(got.map((e) => e.seq)).toEqual(got.map((_, i) => i + 1));
  });
});
