/**
 * CONTRACT 16, MCP tasks (2025-11-25): a task-augmented tools/call answers at once with the router's task;
 * tasks/get, tasks/result, tasks/list and tasks/cancel act on the router's tasks, owner-scoped.
 */
import { afterAll, beforeAll, describe, expect, test } from "@jest/globals";
import { CallToolResultSchema, CreateTaskResultSchema } from "@modelcontextprotocol/sdk/types.js";
import { startChatRig, type ChatRig } from "../chat/helpers.js";
import { until } from "../helpers/until.js";
import { connectMcp, texts, type McpPeer } from "./helpers.js";

const KEYS = [
  { key: "key-a", name: "alice" },
  { key: "key-b", name: "bob" },
];

let rig: ChatRig;
let alice: McpPeer;
let bob: McpPeer;

beforeAll(async () => {
  rig = await startChatRig({ apiKeys: KEYS });
  alice = await connectMcp(rig.router.url, { apiKey: "key-a" });
  bob = await connectMcp(rig.router.url, { apiKey: "key-b" });
});

afterAll(async () => {
  await alice.close();
  await bob.close();
  await rig.close();
});

/** A task-augmented call: the CreateTaskResult. */
function startTask(peer: McpPeer, name: string, message: string) {
  return peer.client.request({ method: "tools/call", params: { name, arguments: { message }, task: { ttl: 60_000 } } }, CreateTaskResultSchema);
}

describe("task-augmented tools/call", () => {
  test("answers at once with the router's task; tasks/get follows it; tasks/result is the call's result", async () => {
    rig.stepped.reset();
    const { task } = await startTask(alice, "stepper", "tasks");
    expect(task).toMatchObject({ taskId: expect.any(String), status: "working", ttl: null });
    await rig.stepped.reached("status-1");
    await until(async () => (await alice.client.experimental.tasks.getTask(task.taskId)).statusMessage === "Looking things up");
    expect(await alice.client.experimental.tasks.getTask(task.taskId)).toMatchObject({ taskId: task.taskId, status: "working" });
    const result = alice.client.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema);
    rig.stepped.release("step-1");
    await rig.stepped.reached("status-2");
    rig.stepped.release("step-2");
    const done = await result;
    expect(texts(done)).toEqual(["Hello tasks!"]);
    expect(done.structuredContent).toMatchObject({ taskId: task.taskId, state: "completed" });
    expect(await alice.client.experimental.tasks.getTask(task.taskId)).toMatchObject({ status: "completed" });
    // The same task, for A2A clients too.
    expect((await rig.router.engine.getTask(task.taskId))!.status.state).toBe("completed");
  });

  test("tasks/list holds the caller's tasks only; another key cannot see, read or cancel them", async () => {
    const { task } = await startTask(alice, "echo", "mine");
    await until(async () => (await alice.client.experimental.tasks.getTask(task.taskId)).status === "completed");
    const listed = await alice.client.experimental.tasks.listTasks();
    expect(listed.tasks.map((t) => t.taskId)).toContain(task.taskId);
    expect((await bob.client.experimental.tasks.listTasks()).tasks.map((t) => t.taskId)).not.toContain(task.taskId);
    await expect(bob.client.experimental.tasks.getTask(task.taskId)).rejects.toThrow(/Task not found/);
    await expect(bob.client.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema)).rejects.toThrow(/Task not found/);
    await expect(bob.client.experimental.tasks.cancelTask(task.taskId)).rejects.toThrow(/Task not found/);
    // Nor continue it with a call.
    await expect(bob.client.callTool({ name: "echo", arguments: { message: "theirs", taskId: task.taskId } })).rejects.toThrow(/Task not found/);
  });

  test("tasks/cancel cancels the router's task; a finished task is not cancelable", async () => {
    rig.stepped.reset();
    const { task } = await startTask(alice, "stepper", "hang");
    await rig.stepped.reached("hanging");
    const cancelled = await alice.client.experimental.tasks.cancelTask(task.taskId);
    expect(cancelled).toMatchObject({ taskId: task.taskId, status: "cancelled" });
    await expect(alice.client.experimental.tasks.cancelTask(task.taskId)).rejects.toThrow(/cannot be canceled/);
  });
});
