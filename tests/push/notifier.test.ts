import { afterEach, beforeEach, describe, expect, test } from "@jest/globals";
import type { AgentUpdate, DialectName, LoggedEvent, Task } from "../../router/core/model.js";
import { silentLogger } from "../../router/observability/logger.js";
import { PushNotifier, type PushNotifierOptions } from "../../router/push/index.js";
import { MemoryStore } from "../../router/store/index.js";
import { until } from "../interop/helpers.js";
import { WebhookReceiver } from "./webhook.js";

/**
 * The notifier on its own: a memory store stands in for the engine's log (events are committed to it,
 * then `notify` is called, as the engine's observer does) and a loopback receiver plays the webhook.
 */

let store: MemoryStore;
let hooks: WebhookReceiver;
let notifier: PushNotifier;

function newNotifier(options: Partial<PushNotifierOptions> = {}): PushNotifier {
  return new PushNotifier({ store, logger: silentLogger(), baseDelayMs: 5, maxDelayMs: 20, timeoutMs: 10_000, ...options });
}

beforeEach(async () => {
  store = new MemoryStore();
  hooks = await new WebhookReceiver().start();
  notifier = newNotifier();
});

afterEach(async () => {
  await notifier.close();
  await hooks.stop();
  await store.close();
});

async function newTask(id: string, dialect: DialectName): Promise<Task> {
  const now = new Date().toISOString();
  const task: Task = {
    id,
    contextId: `ctx-${id}`,
    agentId: "echo",
    dialect,
    status: { state: "submitted", timestamp: now },
    artifacts: [],
    history: [{ role: "user", parts: [{ kind: "text", text: "hi" }], messageId: "m1" }],
    metadata: {},
    createdAt: now,
    updatedAt: now,
    lastSeq: 0,
  };
  await store.commit({ tasks: [task], events: [] });
  return task;
}

/** Logs one update as the engine would (commit, then tell the observer); returns without waiting for pushes. */
async function emit(task: Task, update: AgentUpdate): Promise<LoggedEvent> {
  task.lastSeq += 1;
  const event = (
    update.kind === "status"
      ? { ...update, final: update.final ?? ["completed", "failed", "canceled", "input-required"].includes(update.status.state) }
      : update
  ) as LoggedEvent;
  Object.assign(event, { taskId: task.id, contextId: task.contextId, seq: task.lastSeq });
  if (update.kind === "status") task.status = update.status;
  else task.artifacts = [update.artifact];
  await store.commit({ tasks: [task], events: [event] });
  expect(notifier.notify([event])).toBeUndefined(); // synchronous: the engine never waits on a webhook
  return event;
}

const working = (text: string): AgentUpdate => ({ kind: "status", status: { state: "working", message: { role: "agent", parts: [{ kind: "text", text }] } } });
const completed: AgentUpdate = { kind: "status", status: { state: "completed" }, final: true };
const chunk: AgentUpdate = { kind: "artifact", artifact: { artifactId: "a", parts: [{ kind: "text", text: "x" }] } };

describe("delivery", () => {
  test("every update of a v0.1 task is POSTed in order, as a v0.1 event, with its token", async () => {
    const task = await newTask("t1", "v0.1");
    await notifier.set(task.id, { url: `${hooks.url}/a`, token: "tok" }, 0);
    await emit(task, working("one"));
    await emit(task, chunk);
    await emit(task, completed);
    const got = await hooks.waitFor("/a", 3);
    expect(got.map((d) => d.body.status?.state ?? "artifact")).toEqual(["working", "artifact", "completed"]);
    expect(got[0]!.body).toMatchObject({ id: "t1", final: false, status: { message: { parts: [{ type: "text", text: "one" }] } } });
    expect(got[2]!.body.final).toBe(true);
    expect(got[0]!.headers["x-a2a-notification-token"]).toBe("tok");
    expect(got[0]!.headers.authorization).toBe("Bearer tok");
    expect(got[0]!.headers["content-type"]).toBe("application/json");
  });

  test("a v1.0 task's webhook gets StreamResponses (application/a2a+json); authentication becomes Authorization", async () => {
    const task = await newTask("t2", "v1.0");
    await notifier.set(task.id, { id: "c1", url: `${hooks.url}/v1`, token: "tok", authentication: { schemes: ["Basic"], credentials: "dXNlcjpwdw==" } }, 0);
    await emit(task, working("go"));
    await emit(task, completed);
    const got = await hooks.waitFor("/v1", 2);
    expect(got[0]!.body).toEqual({
      statusUpdate: expect.objectContaining({ taskId: "t2", contextId: "ctx-t2", status: expect.objectContaining({ state: "TASK_STATE_WORKING" }) }),
    });
    expect(got[1]!.body.statusUpdate.status.state).toBe("TASK_STATE_COMPLETED");
    expect(got[0]!.headers["content-type"]).toBe("application/a2a+json");
    expect(got[0]!.headers.authorization).toBe("Basic dXNlcjpwdw==");
    expect(got[0]!.headers["x-a2a-notification-token"]).toBe("tok");
  });

  test("a v0.3 task's webhook gets the Task after each update (spec 9.5)", async () => {
    const task = await newTask("t3", "v0.3");
    await notifier.set(task.id, { url: `${hooks.url}/v03` }, 0);
    await emit(task, chunk);
    await emit(task, completed);
    const got = await hooks.waitFor("/v03", 2);
    expect(got[1]!.body).toMatchObject({ kind: "task", id: "t3", status: { state: "completed" }, artifacts: [{ artifactId: "a" }] });
    expect(got[1]!.headers.authorization).toBeUndefined();
  });

  test("a failing webhook is retried with backoff until it answers; order is kept", async () => {
    hooks.respond = (_path, attempt) => (attempt < 3 ? 503 : 200);
    const task = await newTask("t4", "v0.1");
    await notifier.set(task.id, { url: `${hooks.url}/flaky` }, 0);
    await emit(task, working("first"));
    await emit(task, completed);
    const accepted = await hooks.waitFor("/flaky", 2);
    expect(accepted.map((d) => d.body.status.state)).toEqual(["working", "completed"]);
    expect(hooks.deliveries.filter((d) => d.path === "/flaky").map((d) => d.status)).toEqual([503, 503, 200, 200]);
    await until(() => notifier.stats().delivered === 2, "the second 200 to reach the notifier");
    expect(notifier.stats().failed).toBe(0);
  });

  test("a dead webhook neither holds back the task nor another webhook; it is given up on, then tried once per update", async () => {
    await notifier.close();
    notifier = newNotifier({ maxAttempts: 3, failingAfter: 2 });
    hooks.respond = (path) => (path === "/dead" ? 500 : 200);
    const task = await newTask("t5", "v0.1");
    await notifier.set(task.id, { id: "dead", url: `${hooks.url}/dead` }, 0);
    await notifier.set(task.id, { id: "live", url: `${hooks.url}/live` }, 0);
    await emit(task, working("1"));
    await emit(task, working("2"));
    await emit(task, completed);
    // The healthy hook has everything while the dead one is still being retried.
    const live = await hooks.waitFor("/live", 3);
    expect(live.map((d) => d.body.status.state)).toEqual(["working", "working", "completed"]);
    // 3 tries for each of the first two updates, then one for the third.
    await hooks.waitFor("/dead", 7, true);
    await until(() => notifier.stats().failed === 3, "the dead hook's updates to be given up on");
    await until(() => notifier.stats().targets === 0, "both delivery loops to end with the task");
    expect(hooks.deliveries.filter((d) => d.path === "/dead")).toHaveLength(7);
  });

  test("an unreachable webhook and a hanging one are given up on without blocking", async () => {
    await notifier.close();
    // Each try must reach the hanging receiver before it is cut: half a second is plenty on loopback.
    notifier = newNotifier({ maxAttempts: 2, timeoutMs: 500 });
    hooks.respond = (path) => (path === "/hang" ? "hang" : 200);
    const task = await newTask("t6", "v0.1");
    await notifier.set(task.id, { id: "gone", url: "http://127.0.0.1:9/nothing-listens" }, 0);
    await notifier.set(task.id, { id: "hang", url: `${hooks.url}/hang` }, 0);
    await emit(task, completed);
    await until(() => notifier.stats().failed === 2, "both hooks to be given up on");
    expect(hooks.deliveries.filter((d) => d.path === "/hang")).toHaveLength(2);
  });
});

describe("configs", () => {
  test("a config set without afterSeq gets only what happens next; with it, it catches up from the log", async () => {
    const task = await newTask("t7", "v0.1");
    await emit(task, working("before"));
    await notifier.set(task.id, { id: "late", url: `${hooks.url}/late` });
    await notifier.set(task.id, { id: "replay", url: `${hooks.url}/replay` }, 0);
    await emit(task, completed);
    expect((await hooks.waitFor("/replay", 2)).map((d) => d.body.status.state)).toEqual(["working", "completed"]);
    expect((await hooks.waitFor("/late", 1)).map((d) => d.body.status.state)).toEqual(["completed"]);
    await until(() => notifier.stats().targets === 0, "the loops to end");
    expect(hooks.accepted("/late")).toHaveLength(1);
  });

  test("set, list, delete; a deleted config gets nothing more", async () => {
    const task = await newTask("t8", "v0.1");
    const saved = await notifier.set(task.id, { url: `${hooks.url}/x` }, 0);
    expect(saved).toEqual({ id: "default", url: `${hooks.url}/x` });
    await notifier.set(task.id, { id: "keep", url: `${hooks.url}/keep` }, 0);
    expect((await notifier.list(task.id)).map((c) => c.id).sort()).toEqual(["default", "keep"]);
    await emit(task, working("1"));
    await hooks.waitFor("/x", 1);
    await notifier.delete(task.id, "default");
    await notifier.delete(task.id, "default"); // idempotent
    expect((await notifier.list(task.id)).map((c) => c.id)).toEqual(["keep"]);
    await emit(task, completed);
    await hooks.waitFor("/keep", 2);
    expect(hooks.deliveries.filter((d) => d.path === "/x")).toHaveLength(1);
  });

  test("a webhook URL must be http(s); the error names the field", async () => {
    const task = await newTask("t9", "v0.1");
    await expect(notifier.set(task.id, { url: "ftp://example.com/x" })).rejects.toMatchObject({
      reason: "invalid-params",
      data: { field: "pushNotificationConfig.url" },
    });
    await expect(notifier.set(task.id, { url: "not a url" })).rejects.toMatchObject({ data: { field: "pushNotificationConfig.url" } });
  });

  test("configs stored by an earlier run are found again on the task's next update", async () => {
    const task = await newTask("t10", "v0.1");
    await notifier.set(task.id, { url: `${hooks.url}/again` });
    await notifier.close();
    notifier = newNotifier(); // a restart: same store, nothing in memory
    await emit(task, completed);
    expect((await hooks.waitFor("/again", 1))[0]!.body.status.state).toBe("completed");
  });

  test("close() ends every loop, even one in backoff, and later updates are ignored", async () => {
    hooks.respond = () => 500;
    await notifier.close();
    notifier = newNotifier({ baseDelayMs: 60_000, maxDelayMs: 60_000 });
    const task = await newTask("t11", "v0.1");
    await notifier.set(task.id, { url: `${hooks.url}/slow` }, 0);
    await emit(task, working("1"));
    await hooks.waitFor("/slow", 1, true); // first try failed: the loop now waits a minute
    await notifier.close();
    expect(notifier.stats().targets).toBe(0);
    notifier.notify([]);
  });
});
