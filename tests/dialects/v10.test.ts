import { describe, expect, test } from "@jest/globals";
import {
  ListTasksResponse as PbListTasksResponse,
  Role,
  SendMessageRequest as PbSendMessageRequest,
  SendMessageResponse as PbSendMessageResponse,
  StreamResponse as PbStreamResponse,
  Task as PbTask,
  TaskPushNotificationConfig as PbPushConfig,
  TaskState,
} from "@a2a-js/sdk";
import type { ExecuteContext } from "../../router/core/agent.js";
import {
  assertA2AVersion,
  DATA_PART_COMPAT_FLAG,
  partFromV10,
  partToV10,
  requestedA2AVersion,
  updatesFromV10,
  v10,
  v10Upstream,
} from "../../router/dialects/index.js";
import { SchemaRegistry } from "../../router/schema/validator.js";
import { artifactEvent, completedEvent, inputRequiredEvent, sampleTask, snapshotEvent, workingEvent } from "./fixtures.js";

const schemas = new SchemaRegistry();

/** SendMessage params exactly as @a2a-js/sdk's JSON-RPC transport serialises them. */
const sdkSendParams = PbSendMessageRequest.toJSON({
  tenant: "",
  message: {
    messageId: "m-1",
    contextId: "ctx-9",
    taskId: "",
    role: Role.ROLE_USER,
    parts: [
      { content: { $case: "text", value: "hi" }, metadata: undefined, filename: "", mediaType: "" },
      { content: { $case: "url", value: "https://example.com/a.pdf" }, metadata: undefined, filename: "a.pdf", mediaType: "application/pdf" },
      { content: { $case: "raw", value: Buffer.from("hi") }, metadata: undefined, filename: "", mediaType: "text/plain" },
      { content: { $case: "data", value: [1, 2] }, metadata: undefined, filename: "", mediaType: "" },
    ],
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
  },
  configuration: {
    acceptedOutputModes: [],
    taskPushNotificationConfig: {
      tenant: "",
      id: "",
      taskId: "",
      url: "http://127.0.0.1:1/hook",
      token: "tok",
      authentication: { scheme: "Bearer", credentials: "c" },
    },
    historyLength: 3,
    returnImmediately: false,
  },
  metadata: { agent: "echo" },
}) as Record<string, any>;

/** Every member name anywhere in a JSON value. */
function keysDeep(value: unknown, out = new Set<string>()): Set<string> {
  if (Array.isArray(value)) for (const v of value) keysDeep(v, out);
  else if (value && typeof value === "object") {
    for (const [k, v] of Object.entries(value)) {
      out.add(k);
      keysDeep(v, out);
    }
  }
  return out;
}

describe("v1.0 requests", () => {
  test("an SDK SendMessage request validates and translates to a SendRequest", () => {
    expect(schemas.check(v10.paramsSchemaId("SendMessage"), sdkSendParams)).toBeUndefined();
    const req = v10.toSendRequest(sdkSendParams);
    expect(req.taskId).toBeUndefined();
    expect(req.contextId).toBe("ctx-9");
    expect(req.metadata).toEqual({ agent: "echo" });
    expect(req.historyLength).toBe(3);
    expect(req.pushNotification).toEqual({
      url: "http://127.0.0.1:1/hook",
      token: "tok",
      authentication: { schemes: ["Bearer"], credentials: "c" },
    });
    expect(req.message.role).toBe("user");
    expect(req.message.messageId).toBe("m-1");
    expect(req.message.parts).toEqual([
      { kind: "text", text: "hi" },
      { kind: "file", file: { uri: "https://example.com/a.pdf", name: "a.pdf", mimeType: "application/pdf" } },
      { kind: "file", file: { bytes: Buffer.from("hi").toString("base64"), mimeType: "text/plain" } },
      { kind: "data", data: { value: [1, 2] }, metadata: { [DATA_PART_COMPAT_FLAG]: true } },
    ]);
    expect(v10.returnsImmediately?.(sdkSendParams)).toBe(false);
    expect(v10.returnsImmediately?.({ ...sdkSendParams, configuration: { returnImmediately: true } })).toBe(true);
  });

  test.each([
    [{ message: { ...sdkSendParams.message, role: "user" } }, "message.role"],
    [{ message: { ...sdkSendParams.message, parts: [{ mediaType: "text/plain" }] } }, "message.parts[0]"],
    [{ message: { ...sdkSendParams.message, parts: [{ text: "a", url: "b" }] } }, "message.parts[0]"],
    [{ message: { ...sdkSendParams.message, parts: [] } }, "message.parts"],
    [{ message: { role: "ROLE_USER", parts: [{ text: "x" }] } }, "message.messageId"],
  ])("bad SendMessage params name the failing field (%#)", (params, field) => {
    expect(schemas.check(v10.paramsSchemaId("SendMessage"), params)?.field.startsWith(field)).toBe(true);
  });

  test("every method has a params schema that compiles; GetExtendedAgentCard takes none", () => {
    for (const method of Object.keys(v10.methods)) {
      expect(() => schemas.check(v10.paramsSchemaId(method), {})).not.toThrow();
    }
    expect(schemas.check(v10.paramsSchemaId("GetExtendedAgentCard"), {})).toBeUndefined();
    expect(schemas.check(v10.paramsSchemaId("GetTask"), {})?.field).toBe("id");
    expect(v10.toTaskRef({ id: "t", historyLength: 0 })).toEqual({ taskId: "t", historyLength: 0 });
  });

  test("ListTasks: ProtoJSON status enum to the internal state, paging and options", () => {
    const params = { contextId: "ctx-1", status: "TASK_STATE_WORKING", pageSize: 10, pageToken: "abc", includeArtifacts: true };
    expect(schemas.check(v10.paramsSchemaId("ListTasks"), params)).toBeUndefined();
    expect(v10.toListQuery?.(params)).toEqual({ contextId: "ctx-1", state: "working", pageSize: 10, pageToken: "abc", includeArtifacts: true });
    expect(v10.toListQuery?.({ status: "TASK_STATE_UNSPECIFIED" })).toEqual({});
    expect(schemas.check(v10.paramsSchemaId("ListTasks"), { status: "TASK_STATE_RUNNING" })?.field).toBe("status");
    expect(schemas.check(v10.paramsSchemaId("ListTasks"), { pageSize: 150 })?.field).toBe("pageSize");
  });

  test("push config methods: Create, Get, List, Delete", () => {
    const create = PbPushConfig.toJSON({ tenant: "", id: "p1", taskId: "t", url: "http://h/x", token: "k", authentication: undefined });
    expect(schemas.check(v10.paramsSchemaId("CreateTaskPushNotificationConfig"), create)).toBeUndefined();
    expect(schemas.check(v10.paramsSchemaId("CreateTaskPushNotificationConfig"), { url: "http://h/x" })?.field).toBe("taskId");
    expect(v10.toPushRef(create)).toEqual({ taskId: "t", configId: "p1", config: { id: "p1", url: "http://h/x", token: "k" } });
    expect(v10.toPushRef({ taskId: "t", id: "p1" })).toEqual({ taskId: "t", configId: "p1" });
    expect(v10.toPushRef({ taskId: "t" })).toEqual({ taskId: "t" });
    const rendered = v10.renderPushConfig("t", { id: "p1", url: "http://h/x", authentication: { schemes: ["Bearer"], credentials: "c" } });
    expect(rendered).toEqual({ taskId: "t", id: "p1", url: "http://h/x", authentication: { scheme: "Bearer", credentials: "c" } });
    expect(PbPushConfig.toJSON(PbPushConfig.fromJSON(rendered))).toEqual(rendered);
    expect(v10.renderPushConfigList?.("t", [{ url: "http://h/x" }])).toEqual({ configs: [{ taskId: "t", url: "http://h/x" }], nextPageToken: "" });
    expect(v10.renderPushDeleted?.()).toEqual({});
  });
});

describe("v1.0 results and events", () => {
  test("SendMessage answers {task}; ProtoJSON enums; the SDK reads it back losslessly", () => {
    const rendered = v10.renderSendResult(sampleTask()) as Record<string, any>;
    expect(schemas.check("v1.0#/$defs/SendMessageResponse", rendered)).toBeUndefined();
    const task = rendered.task;
    expect(task.status.state).toBe("TASK_STATE_COMPLETED");
    expect(task.status.message.role).toBe("ROLE_AGENT");
    expect(task.history.map((m: any) => m.role)).toEqual(["ROLE_USER", "ROLE_AGENT"]);
    expect(task.artifacts[0].parts).toEqual([
      { text: "hello" },
      { raw: "aGk=", filename: "hi.txt", mediaType: "text/plain" },
      { url: "https://example.com/x.png", mediaType: "image/png" },
      { data: { n: 1 } },
    ]);
    const decoded = PbSendMessageResponse.fromJSON(rendered);
    expect(decoded.payload?.$case).toBe("task");
    const pb = decoded.payload!.value as ReturnType<typeof PbTask.fromJSON>;
    expect(pb.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(pb.artifacts[0]!.parts.map((p) => p.content?.$case)).toEqual(["text", "raw", "url", "data"]);
    expect(PbTask.toJSON(pb)).toEqual(task);
  });

  test("no v0.x discriminators leak into v1.0 output", () => {
    const keys = new Set([
      ...keysDeep(v10.renderTask(sampleTask())),
      ...keysDeep(v10.renderEvent(workingEvent)),
      ...keysDeep(v10.renderEvent(artifactEvent)),
      ...keysDeep(v10.renderEvent(completedEvent)),
    ]);
    expect(keys.has("kind")).toBe(false);
    expect(keys.has("final")).toBe(false);
    expect(keys.has("type")).toBe(false);
  });

  test("stream events are StreamResponses by member name; the stream opens with the Task", () => {
    const working = v10.renderEvent(workingEvent) as Record<string, any>;
    expect(Object.keys(working)).toEqual(["statusUpdate"]);
    expect(working.statusUpdate).toMatchObject({
      taskId: "task-1",
      contextId: "ctx-1",
      status: { state: "TASK_STATE_WORKING" },
      metadata: { fullText: "thinking" },
    });
    const chunk = v10.renderEvent(artifactEvent) as Record<string, any>;
    expect(chunk).toEqual({
      artifactUpdate: { taskId: "task-1", contextId: "ctx-1", artifact: { artifactId: "a-1", parts: [{ text: "hel" }] }, append: true },
    });
    for (const e of [working, chunk, v10.renderEvent(completedEvent), v10.renderEvent(snapshotEvent)]) {
      expect(schemas.check("v1.0#/$defs/StreamResponse", e)).toBeUndefined();
      expect(PbStreamResponse.toJSON(PbStreamResponse.fromJSON(e))).toEqual(e);
    }
    expect(v10.streamStartsWithTask).toBe(true);
    const start = v10.renderStreamStart?.(sampleTask()) as Record<string, any>;
    expect(Object.keys(start)).toEqual(["task"]);
    expect(PbStreamResponse.fromJSON(start).payload?.$case).toBe("task");
  });

  test("status events carry no final (the state says it); finished tasks refuse SubscribeToTask", () => {
    const working = v10.renderEvent(workingEvent) as Record<string, any>;
    const completed = v10.renderEvent(completedEvent) as Record<string, any>;
    const asking = v10.renderEvent(inputRequiredEvent) as Record<string, any>;
    for (const e of [working, completed, asking]) expect(e.statusUpdate).not.toHaveProperty("final");
    expect(completed.statusUpdate.status.state).toBe("TASK_STATE_COMPLETED");
    expect(asking.statusUpdate.status.state).toBe("TASK_STATE_INPUT_REQUIRED");
    expect(v10.finishedResubscribe).toBe("unsupported");
  });

  test("ListTasks leaves out artifacts unless asked, and history unless asked", () => {
    const page = v10.renderList?.([sampleTask()], "", 50) as Record<string, any>;
    expect(schemas.check("v1.0#/$defs/ListTasksResponse", page)).toBeUndefined();
    expect(page).toMatchObject({ nextPageToken: "", pageSize: 50, totalSize: 1 });
    expect(page.tasks[0].artifacts).toBeUndefined();
    expect(page.tasks[0].history).toBeUndefined();
    const full = v10.renderList?.([sampleTask()], "next", 1, 1, { includeArtifacts: true, totalSize: 7 }) as Record<string, any>;
    expect(full.tasks[0].artifacts).toHaveLength(1);
    expect(full.tasks[0].history).toHaveLength(1);
    expect(full.totalSize).toBe(7);
    expect(PbListTasksResponse.fromJSON(full).tasks[0]!.id).toBe("task-1");
  });

  test("parts: text, raw, url and data round-trip; non-object data wraps as the SDK does", () => {
    for (const p of [
      { text: "x" },
      { raw: "aGk=", filename: "a", mediaType: "b" },
      { url: "u" },
      { data: { a: 1 } },
      { data: 5 },
      { data: null },
      { data: ["x"], metadata: { m: 1 } },
    ]) {
      expect(partToV10(partFromV10(p))).toEqual(p);
    }
    expect(partFromV10({ data: "s" })).toEqual({ kind: "data", data: { value: "s" }, metadata: { [DATA_PART_COMPAT_FLAG]: true } });
  });
});

describe("A2A-Version", () => {
  test("empty means 0.3; patch versions are ignored; unsupported versions are refused (version-not-supported)", () => {
    expect(requestedA2AVersion(undefined)).toBe("0.3");
    expect(requestedA2AVersion(" ")).toBe("0.3");
    expect(requestedA2AVersion("1.0.1")).toBe("1.0");
    expect(assertA2AVersion("1.0")).toBe("1.0");
    expect(assertA2AVersion(["0.3"])).toBe("0.3");
    for (const bad of ["0.5", "2.0", "latest"]) {
      expect(() => assertA2AVersion(bad)).toThrow(expect.objectContaining({ reason: "version-not-supported", data: { version: bad } }));
    }
  });
});

describe("v1.0 agent side", () => {
  const ctx = (): ExecuteContext => ({
    task: sampleTask({ status: { state: "submitted" } }),
    message: { role: "user", parts: [{ kind: "text", text: "hi" }], taskId: "task-1", contextId: "ctx-1" },
    metadata: {},
    signal: new AbortController().signal,
    flushed: async () => true,
  });

  test("a turn is a SendStreamingMessage (or SendMessage) with A2A-Version 1.0 the SDK can parse", () => {
    const call = v10Upstream.turn(ctx(), true, undefined);
    expect(call.method).toBe("SendStreamingMessage");
    expect(call.headers).toEqual({ "A2A-Version": "1.0" });
    const params = call.params as Record<string, any>;
    expect(schemas.check("v1.0#/$defs/SendMessageRequest", params)).toBeUndefined();
    expect(params.message.taskId).toBeUndefined();
    expect(params.message.contextId).toBe("ctx-1");
    expect(params.message.messageId).toMatch(/^[0-9a-f-]{36}$/);
    const pb = PbSendMessageRequest.fromJSON(params);
    expect(pb.message?.role).toBe(Role.ROLE_USER);
    expect(pb.message?.parts[0]?.content).toEqual({ $case: "text", value: "hi" });
    expect(v10Upstream.turn(ctx(), false, "up-1")).toMatchObject({ method: "SendMessage", params: { message: { taskId: "up-1" } } });
    expect(v10Upstream.cancel("up-1")).toEqual({ method: "CancelTask", params: { id: "up-1" }, headers: { "A2A-Version": "1.0" } });
  });

  test("StreamResponses become internal updates; the opening submitted Task is skipped", () => {
    const opening = PbStreamResponse.toJSON({
      payload: { $case: "task", value: PbTask.fromJSON({ id: "up-1", contextId: "c", status: { state: "TASK_STATE_SUBMITTED" } }) },
    });
    expect(v10Upstream.fromStreamResult(opening)).toEqual([]);
    expect(v10Upstream.fromStreamResult(opening, { index: 0, followUp: false })).toEqual([]);
    // A follow-up's opening Task still says input-required (the previous turn): not this turn's end.
    const stale = {
      task: { id: "up-1", contextId: "c", status: { state: "TASK_STATE_INPUT_REQUIRED" }, artifacts: [{ artifactId: "a", parts: [{ text: "old" }] }] },
    };
    expect(v10Upstream.fromStreamResult(stale, { index: 0, followUp: true })).toEqual([]);
    // A first turn answered by a single Task: that Task is the answer.
    const oneShot = {
      task: { id: "up-2", contextId: "c", status: { state: "TASK_STATE_COMPLETED" }, artifacts: [{ artifactId: "a", parts: [{ text: "new" }] }] },
    };
    expect(v10Upstream.fromStreamResult(oneShot, { index: 0, followUp: false }).map((u) => u.kind)).toEqual(["artifact", "status"]);
    // Later in a stream a Task is an update like any other.
    expect(v10Upstream.fromStreamResult(stale, { index: 3, followUp: true }).map((u) => u.kind)).toEqual(["artifact", "status"]);
    expect(v10Upstream.upstreamTaskId?.(opening)).toBe("up-1");
    const status = {
      statusUpdate: {
        taskId: "up-1",
        contextId: "c",
        status: { state: "TASK_STATE_INPUT_REQUIRED", message: { messageId: "q", role: "ROLE_AGENT", parts: [{ text: "which?" }] } },
      },
    };
    expect(v10Upstream.fromStreamResult(status)).toEqual([
      { kind: "status", status: { state: "input-required", message: { role: "agent", messageId: "q", parts: [{ kind: "text", text: "which?" }] } } },
    ]);
    expect(v10Upstream.upstreamTaskId?.(status)).toBe("up-1");
    const chunk = { artifactUpdate: { taskId: "up-1", contextId: "c", artifact: { artifactId: "a", parts: [{ text: "x" }] }, append: true, lastChunk: true } };
    expect(v10Upstream.fromStreamResult(chunk)).toEqual([
      { kind: "artifact", artifact: { artifactId: "a", parts: [{ kind: "text", text: "x" }] }, append: true, lastChunk: true },
    ]);
  });

  test("a SendMessage result (Task or Message) becomes its artifacts then its status", () => {
    const updates = v10Upstream.fromSendResult(v10.renderSendResult(sampleTask()));
    expect(updates.map((u) => u.kind)).toEqual(["artifact", "status"]);
    expect(updates[1]).toMatchObject({ kind: "status", status: { state: "completed" } });
    expect(updatesFromV10({ message: { messageId: "r", role: "ROLE_AGENT", parts: [{ text: "hey" }] } })).toEqual([
      // Marked as a bare-Message answer, so that a v0.3/v1.0 send answers with the Message (agent-answer.ts).
      {
        kind: "status",
        status: { state: "completed", message: { role: "agent", messageId: "r", parts: [{ kind: "text", text: "hey" }] } },
        metadata: { messageAnswer: true },
      },
    ]);
    expect(() => updatesFromV10({ kind: "task" })).toThrow(expect.objectContaining({ reason: "invalid-agent-response" }));
  });
});
