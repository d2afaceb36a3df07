import { afterAll, beforeAll, describe, expect, test } from "@jest/globals";
import { createEchoAgent } from "../../agents/echo/index.js";
import { AgentRegistry } from "../../router/agents/registry.js";
import { TaskEngine } from "../../router/core/engine.js";
import { TaskError, type TaskErrorReason } from "../../router/core/errors.js";
import { bindMethod, DIALECTS, dialectByName } from "../../router/dialects/index.js";
import { A2ARequestHandler, isStreaming, MessageStream, type HandlerResult, type Operation } from "../../router/handler/index.js";
import { silentLogger } from "../../router/observability/logger.js";
import { SchemaRegistry } from "../../router/schema/validator.js";
import { TaskService } from "../../router/service/index.js";
import { MemoryStore } from "../../router/store/memory-store.js";

/** The one A2A request handler over a real engine and memory store, called as any binding calls it. */

const v01 = dialectByName("v0.1");
const v03 = dialectByName("v0.3");
const v10 = dialectByName("v1.0");
const schemas = new SchemaRegistry();
let store: MemoryStore;
let engine: TaskEngine;
let service: TaskService;

beforeAll(() => {
  store = new MemoryStore();
  const agents = new AgentRegistry();
  agents.set(createEchoAgent());
  engine = new TaskEngine({ store, agents, logger: silentLogger(), taskTimeoutMs: 30_000 });
  service = new TaskService({ engine, agents, defaultAgent: "echo" });
});

afterAll(async () => {
  await engine.close();
  await store.close();
});

async function reason(p: Promise<unknown>): Promise<TaskErrorReason> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(TaskError);
  return (err as TaskError).reason;
}

function valueIn(result: HandlerResult): any {
  if (result.kind !== "value") throw new Error("expected a value");
  return result.value;
}

/** A streamed answer's messages (seq and result), each written bare as the REST binding writes them. */
async function messages(result: HandlerResult): Promise<Array<{ seq?: number; result: any }>> {
  if (result.kind !== "stream") throw new Error("expected a stream");
  const out: Array<{ seq?: number; result: any }> = [];
  for await (const m of new MessageStream(result.reply, (r) => (typeof r === "string" ? r : [r]))) {
    const text = typeof m.data === "string" ? m.data : Buffer.concat(m.data.map((p) => Buffer.from(p))).toString();
    out.push({ ...(m.seq !== undefined && { seq: m.seq }), result: JSON.parse(text) });
  }
  return out;
}

async function results(result: HandlerResult): Promise<any[]> {
  return (await messages(result)).map((m) => m.result);
}

const v10Send = (text: string) => ({ message: { messageId: `m-${text}`, role: "ROLE_USER", parts: [{ text }] } });

test("every dialect's methods are the A2A v1.0 operations: v0.1 and v0.3 names map onto them", () => {
  const operations = new Set<Operation>();
  for (const d of DIALECTS) for (const op of Object.values(d.methods)) operations.add(op);
  expect([...operations].sort()).toEqual(
    [
      "CancelTask",
      "CreateTaskPushNotificationConfig",
      "DeleteTaskPushNotificationConfig",
      "GetExtendedAgentCard",
      "GetTask",
      "GetTaskPushNotificationConfig",
      "ListTaskPushNotificationConfigs",
      "ListTasks",
      "SendMessage",
      "SendStreamingMessage",
      "SubscribeToTask",
    ].sort(),
  );
  expect(bindMethod("tasks/sendSubscribe")?.operation).toBe("SendStreamingMessage");
  expect(bindMethod("message/stream")?.operation).toBe("SendStreamingMessage");
  expect(bindMethod("agent/getAuthenticatedExtendedCard")?.operation).toBe("GetExtendedAgentCard");
  expect(isStreaming("SubscribeToTask")).toBe(true);
  expect(isStreaming("SendMessage")).toBe(false);
});

describe("the handler", () => {
  const handler = () => new A2ARequestHandler({ service, schemas });

  test("GetExtendedAgentCard without a card configured: extended-card-not-configured, whatever the binding", async () => {
    expect(await reason(handler().handle(v10, "GetExtendedAgentCard", {}))).toBe("extended-card-not-configured");
    expect(await reason(handler().handle(v03, "GetExtendedAgentCard", {}))).toBe("extended-card-not-configured");
    const withCard = new A2ARequestHandler({ service, schemas, extendedCard: (agentId) => ({ name: agentId ?? "router" }) });
    expect(valueIn(await withCard.handle(v10, "GetExtendedAgentCard", {}, { agentId: "echo" }))).toEqual({ name: "echo" });
  });

  test("params are checked against the dialect's schema, the error naming the field", async () => {
    const err = await handler()
      .handle(v10, "GetTask", { id: "" })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TaskError);
    expect((err as TaskError).reason).toBe("invalid-params");
    expect((err as TaskError).field).toBe("id");
  });

  test("an operation a dialect does not have is unsupported", async () => {
    expect(await reason(handler().handle(v03, "ListTasks", {}))).toBe("unsupported-operation");
  });

  test("a finished task: v1.0 refuses the subscription (unsupported-operation), v0.3 replays its end", async () => {
    const sent = valueIn(await handler().handle(v10, "SendMessage", v10Send("done")));
    const taskId = sent.task.id as string;
    expect(sent.task.status.state).toBe("TASK_STATE_COMPLETED");
    expect(await reason(handler().handle(v10, "SubscribeToTask", { id: taskId }))).toBe("unsupported-operation");
    const replay = await results(await handler().handle(v03, "SubscribeToTask", { id: taskId }));
    expect(replay.at(-1)).toMatchObject({ kind: "status-update", final: true, status: { state: "completed" } });
  });

  test("a stream in v1.0 opens with the Task, then the task's events; resumed after a seq, exactly what follows", async () => {
    const streamed = await messages(await handler().handle(v10, "SendStreamingMessage", v10Send("streamed")));
    const [opening, first, ...rest] = streamed;
    expect(opening!.seq).toBeUndefined();
    expect(opening!.result).toHaveProperty("task");
    expect(streamed.at(-1)!.result).toMatchObject({ statusUpdate: { status: { state: "TASK_STATE_COMPLETED" } } });
    const taskId = opening!.result.task.id as string;
    const resumed = await messages(await handler().handle(v10, "SubscribeToTask", { id: taskId }, { lastEventId: String(first!.seq) }));
    expect(resumed).toEqual(rest);
    expect(await reason(handler().handle(v10, "SubscribeToTask", { id: taskId }, { lastEventId: "x" }))).toBe("invalid-params");
  });

  test("a method two dialects name answers in the dialect the task was created in", async () => {
    const sent = valueIn(
      await handler().handle(v03, "SendMessage", { message: { kind: "message", messageId: "m-shared", role: "user", parts: [{ kind: "text", text: "hi" }] } }),
    );
    const got = valueIn(await handler().handle([v01, v03], "GetTask", { id: sent.id }));
    expect(got).toMatchObject({ id: sent.id, kind: "task" });
  });
});
