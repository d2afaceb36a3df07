import { describe, expect, test } from "@jest/globals";
import type { ExecuteContext } from "../../router/core/agent.js";
import { TaskError } from "../../router/core/errors.js";
import { SchemaRegistry } from "../../router/schema/validator.js";
import { messageFromV03, messageToV03, updatesFromV03, v03, v03Upstream } from "../../router/dialects/index.js";
import { artifactEvent, completedEvent, inputRequiredEvent, sampleTask, snapshotEvent, workingEvent } from "./fixtures.js";

const schemas = new SchemaRegistry();

/** A message/send request as @a2a-js/sdk's v0.3 transport writes it. */
const sendParams = {
  message: {
    kind: "message",
    messageId: "m-1",
    role: "user",
    parts: [
      { kind: "text", text: "hi" },
      { kind: "file", file: { uri: "https://example.com/a.pdf", mimeType: "application/pdf" } },
      { kind: "data", data: { a: 1 } },
    ],
    contextId: "ctx-9",
  },
  configuration: {
    blocking: true,
    acceptedOutputModes: [],
    historyLength: 2,
    pushNotificationConfig: { url: "http://127.0.0.1:1/hook", token: "tok", authentication: { schemes: ["Bearer"], credentials: "c" } },
  },
  metadata: { agent: "echo" },
};

describe("v0.3 requests", () => {
  test("message/send params validate and translate to a SendRequest", () => {
    expect(schemas.check(v03.paramsSchemaId("message/send"), sendParams)).toBeUndefined();
    const req = v03.toSendRequest(sendParams);
    expect(req.taskId).toBeUndefined();
    expect(req.contextId).toBe("ctx-9");
    expect(req.metadata).toEqual({ agent: "echo" });
    expect(req.historyLength).toBe(2);
    expect(req.pushNotification).toEqual({
      url: "http://127.0.0.1:1/hook",
      token: "tok",
      authentication: { schemes: ["Bearer"], credentials: "c" },
    });
    expect(req.message).toEqual({
      role: "user",
      messageId: "m-1",
      contextId: "ctx-9",
      parts: [
        { kind: "text", text: "hi" },
        { kind: "file", file: { uri: "https://example.com/a.pdf", mimeType: "application/pdf" } },
        { kind: "data", data: { a: 1 } },
      ],
    });
    expect(v03.returnsImmediately?.(sendParams)).toBe(false);
    expect(v03.returnsImmediately?.({ ...sendParams, configuration: { blocking: false } })).toBe(true);
  });

  test("a follow-up names its task in message.taskId", () => {
    const req = v03.toSendRequest({ message: { ...sendParams.message, taskId: "task-1" } });
    expect(req.taskId).toBe("task-1");
    expect(req.metadata).toEqual({});
    expect(v03.clientNamesTasks).toBe(false);
  });

  test.each([
    [{ message: { ...sendParams.message, parts: [{ kind: "text" }] } }, "message.parts[0].text"],
    [{ message: { ...sendParams.message, parts: [{ text: "no kind" }] } }, "message.parts[0].kind"],
    [{ message: { ...sendParams.message, parts: [{ kind: "file", file: { name: "x" } }] } }, "message.parts[0].file"],
    [{ message: { ...sendParams.message, role: "robot" } }, "message.role"],
    [{ message: { role: "user", parts: [] } }, "message"],
    [{}, "message"],
  ])("bad message/send params name the failing field (%#)", (params, field) => {
    const issue = schemas.check(v03.paramsSchemaId("message/send"), params);
    expect(issue?.field.startsWith(field)).toBe(true);
  });

  test("every method has a params schema that compiles", () => {
    for (const method of Object.keys(v03.methods)) {
      expect(() => schemas.check(v03.paramsSchemaId(method), {})).not.toThrow();
    }
    expect(() => v03.paramsSchemaId("tasks/send")).toThrow(expect.objectContaining({ reason: "method-not-found" }));
  });

  test("tasks/get and tasks/cancel params", () => {
    expect(schemas.check(v03.paramsSchemaId("tasks/get"), { id: "t", historyLength: 1 })).toBeUndefined();
    expect(schemas.check(v03.paramsSchemaId("tasks/cancel"), {})?.field).toBe("id");
    expect(v03.toTaskRef({ id: "t", historyLength: 1 })).toEqual({ taskId: "t", historyLength: 1 });
  });

  test("push config methods: set, get, list, delete", () => {
    const set = { taskId: "t", pushNotificationConfig: { id: "p1", url: "http://h/x", token: "k" } };
    expect(schemas.check(v03.paramsSchemaId("tasks/pushNotificationConfig/set"), set)).toBeUndefined();
    expect(v03.toPushRef(set)).toEqual({ taskId: "t", configId: "p1", config: { id: "p1", url: "http://h/x", token: "k" } });
    expect(v03.toPushRef({ id: "t", pushNotificationConfigId: "p1" })).toEqual({ taskId: "t", configId: "p1" });
    expect(v03.toPushRef({ id: "t" })).toEqual({ taskId: "t" });
    expect(schemas.check(v03.paramsSchemaId("tasks/pushNotificationConfig/delete"), { id: "t" })?.field).toBe("pushNotificationConfigId");
    const rendered = v03.renderPushConfig("t", { id: "p1", url: "http://h/x", token: "k" });
    expect(rendered).toEqual({ taskId: "t", pushNotificationConfig: { id: "p1", url: "http://h/x", token: "k" } });
    expect(schemas.check("v0.3#/$defs/TaskPushNotificationConfig", rendered)).toBeUndefined();
    expect(v03.renderPushConfigList?.("t", [{ url: "http://h/x" }])).toEqual([{ taskId: "t", pushNotificationConfig: { url: "http://h/x" } }]);
    expect(v03.renderPushDeleted?.()).toBeNull();
  });
});

describe("v0.3 results and events", () => {
  test("a Task renders with kind discriminators and validates against the v0.3 schema", () => {
    const rendered = v03.renderSendResult(sampleTask()) as Record<string, any>;
    expect(schemas.check("v0.3#/$defs/Task", rendered)).toBeUndefined();
    expect(rendered.kind).toBe("task");
    expect(rendered.status.state).toBe("completed");
    expect(rendered.status.message.kind).toBe("message");
    expect(rendered.artifacts[0].parts.map((p: { kind: string }) => p.kind)).toEqual(["text", "file", "file", "data"]);
    expect(rendered.history.map((m: { role: string }) => m.role)).toEqual(["user", "agent"]);
    expect(rendered.metadata).toEqual({ skill: "echo" });
  });

  test("messages the agent sent without an id get a stable one, the same in status and history", () => {
    const a = v03.renderTask(sampleTask()) as Record<string, any>;
    const b = v03.renderTask(sampleTask()) as Record<string, any>;
    expect(a.status.message.messageId).toMatch(/^[0-9a-f-]{36}$/);
    expect(a.status.message.messageId).toBe(b.status.message.messageId);
    expect(a.history[1].messageId).toBe(a.status.message.messageId);
    expect(a.history[0].messageId).toBe("m-1");
    expect(a.status.message.taskId).toBe("task-1");
  });

  test("historyLength: unset = all, 0 = none, N = the last N", () => {
    expect((v03.renderTask(sampleTask()) as any).history).toHaveLength(2);
    expect((v03.renderTask(sampleTask(), 0) as any).history).toBeUndefined();
    expect((v03.renderTask(sampleTask(), 1) as any).history.map((m: any) => m.role)).toEqual(["agent"]);
  });

  test("status events carry kind status-update and final; artifact events kind artifact-update", () => {
    const working = v03.renderEvent(workingEvent) as Record<string, any>;
    expect(working).toMatchObject({ kind: "status-update", taskId: "task-1", contextId: "ctx-1", final: false });
    expect(working.metadata).toEqual({ fullText: "thinking" });
    expect(schemas.check("v0.3#/$defs/TaskStatusUpdateEvent", working)).toBeUndefined();

    const chunk = v03.renderEvent(artifactEvent) as Record<string, any>;
    expect(chunk).toMatchObject({ kind: "artifact-update", append: true, lastChunk: false });
    expect(schemas.check("v0.3#/$defs/TaskArtifactUpdateEvent", chunk)).toBeUndefined();

    const done = v03.renderEvent(completedEvent) as Record<string, any>;
    expect(done.final).toBe(true);
    expect(schemas.check("v0.3#/$defs/TaskStatusUpdateEvent", v03.renderEvent(snapshotEvent))).toBeUndefined();
  });

  test("final is written on the turn's last status (completed or input-required) only", () => {
    // Where a stream ends is the engine's call; the dialect writes it as `final`.
    expect((v03.renderEvent(workingEvent) as Record<string, any>).final).toBe(false);
    expect(v03.renderEvent(artifactEvent)).not.toHaveProperty("final");
    expect((v03.renderEvent(completedEvent) as Record<string, any>).final).toBe(true);
    expect((v03.renderEvent(inputRequiredEvent) as Record<string, any>).final).toBe(true);
    expect(v03.streamStartsWithTask).toBe(false);
  });

  test("a message round-trips internal -> v0.3 -> internal", () => {
    const internal = sampleTask().history[0]!;
    expect(messageFromV03(messageToV03(internal))).toEqual(internal);
  });
});

describe("v0.3 agent side", () => {
  const ctx = (message = sampleTask().history[0]!): ExecuteContext => ({
    task: sampleTask({ status: { state: "submitted" } }),
    message,
    metadata: { agent: "up" },
    signal: new AbortController().signal,
    flushed: async () => true,
  });

  test("a first turn sends message/stream without the router's task id, blocking, with A2A-Version 0.3", () => {
    const call = v03Upstream.turn(ctx(), true, undefined);
    expect(call.method).toBe("message/stream");
    expect(call.headers).toEqual({ "A2A-Version": "0.3" });
    const params = call.params as any;
    expect(schemas.check("v0.3#/$defs/MessageSendParams", params)).toBeUndefined();
    expect(params.message.taskId).toBeUndefined();
    expect(params.message.contextId).toBe("ctx-1");
    expect(params.configuration.blocking).toBe(true);
    expect(v03Upstream.turn(ctx(), false, undefined).method).toBe("message/send");
  });

  test("a follow-up turn names the agent's own task", () => {
    const params = v03Upstream.turn(ctx(), true, "up-7").params as any;
    expect(params.message.taskId).toBe("up-7");
    expect(params.message.contextId).toBeUndefined();
    expect(v03Upstream.cancel("up-7")).toMatchObject({ method: "tasks/cancel", params: { id: "up-7" } });
  });

  test("stream results become internal updates; the opening bare Task snapshot is skipped", () => {
    const opening = { kind: "task", id: "up-1", contextId: "c", status: { state: "submitted" } };
    expect(v03Upstream.fromStreamResult(opening)).toEqual([]);
    expect(v03Upstream.upstreamTaskId?.(opening)).toBe("up-1");
    const status = {
      kind: "status-update",
      taskId: "up-1",
      contextId: "c",
      status: { state: "working", message: { kind: "message", messageId: "x", role: "agent", parts: [{ kind: "text", text: "hm" }] } },
      final: false,
    };
    expect(v03Upstream.fromStreamResult(status)).toEqual([
      {
        kind: "status",
        status: { state: "working", message: { role: "agent", messageId: "x", parts: [{ kind: "text", text: "hm" }] } },
        final: false,
      },
    ]);
    expect(v03Upstream.upstreamTaskId?.(status)).toBe("up-1");
    const chunk = {
      kind: "artifact-update",
      taskId: "up-1",
      contextId: "c",
      artifact: { artifactId: "a", parts: [{ kind: "text", text: "x" }] },
      append: true,
    };
    expect(v03Upstream.fromStreamResult(chunk)).toEqual([
      { kind: "artifact", artifact: { artifactId: "a", parts: [{ kind: "text", text: "x" }] }, append: true },
    ]);
  });

  test("a send result (Task or Message) becomes its artifacts then its status", () => {
    const task = v03.renderTask(sampleTask());
    const updates = v03Upstream.fromSendResult(task);
    expect(updates.map((u) => u.kind)).toEqual(["artifact", "status"]);
    const message = { kind: "message", messageId: "r", role: "agent", parts: [{ kind: "text", text: "hello" }] };
    expect(updatesFromV03(message)).toEqual([
      // Marked as a bare-Message answer, so that a v0.3/v1.0 send answers with the Message (agent-answer.ts).
      {
        kind: "status",
        status: { state: "completed", message: { role: "agent", messageId: "r", parts: [{ kind: "text", text: "hello" }] } },
        metadata: { messageAnswer: true },
      },
    ]);
  });

  test("anything else is an invalid agent response", () => {
    expect(() => updatesFromV03({ kind: "nonsense" })).toThrow(expect.objectContaining({ reason: "invalid-agent-response" }));
    expect(() => updatesFromV03("text")).toThrow(TaskError);
  });
});
