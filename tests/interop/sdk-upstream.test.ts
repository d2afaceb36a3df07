import { afterAll, beforeAll, describe, expect, test } from "@jest/globals";
import { TaskState, type StreamResponse, type Task, type TaskArtifactUpdateEvent } from "@a2a-js/sdk";
import { ClientFactory } from "@a2a-js/sdk/client";
import type { RunningRouter } from "../../router/index.js";
import { getJson, openStream, rpc, statusText, userMessage } from "../helpers/rpc.js";
import { testRouter } from "../helpers/router.js";
import { cases, collect, sdkMessage, sdkText } from "./helpers.js";
import { SdkAgent } from "./sdk-agent.js";

/**
 * @a2a-js/sdk's server (DefaultRequestHandler + its express handlers + a streaming AgentExecutor) as an
 * upstream HTTP agent behind the router, reached by a v0.1 client and by the SDK's own client.
 */

let v1: SdkAgent; // v1.0 only, streaming
let v1Plain: SdkAgent; // v1.0 only, not streaming
let both: SdkAgent; // v1.0 + v0.3 (the SDK's legacy compat), used as a v0.3 agent
let router: RunningRouter;

beforeAll(async () => {
  v1 = await new SdkAgent({ streaming: true }).start();
  v1Plain = await new SdkAgent({ streaming: false }).start();
  both = await new SdkAgent({ streaming: true, legacyCompat: true }).start();
  router = await testRouter({
    config: {
      agents: [
        { id: "sdk", url: v1.url },
        { id: "sdk-plain", url: v1Plain.url },
        { id: "sdk-v03", url: both.url, protocol: "0.3" },
      ],
    },
  });
});

afterAll(async () => {
  await router.close();
  await Promise.all([v1.stop(), v1Plain.stop(), both.stop()]);
});

const lastCall = (agent: SdkAgent) => agent.calls.at(-1)!;

describe("the router reads the SDK agent's card", () => {
  test("name, skills and streaming come from the card; the card the router serves points at the router", async () => {
    const { agents } = await getJson(router.url + "/agents");
    const sdk = agents.find((a: { id: string }) => a.id === "sdk");
    expect(sdk).toMatchObject({ transport: "http", online: true, name: "SDK shouter" });
    expect(sdk.card.skills[0].id).toBe("shout");
    expect(sdk.card.url).toBe(`${router.url}/agents/sdk`);
    expect(sdk.card.supportedInterfaces[0].url).toBe(`${router.url}/agents/sdk`);
  });
});

describe("a v0.1 client (tasks/sendSubscribe) reaching a v1.0 SDK agent", () => {
  test("the upstream stream is translated event by event, ending final", async () => {
    const s = await openStream(router.url, "tasks/sendSubscribe", {
      id: "v01-1",
      sessionId: "sess-1",
      message: userMessage("hello"),
      metadata: { agent: "sdk" },
    });
    const events = await s.all();
    // The SDK's opening submitted Task is not an update; then working, two chunks, completed.
    expect(events.map((e) => e.id)).toEqual(["1", "2", "3", "4"]);
    expect(events[0]!.data.result).toMatchObject({ id: "v01-1", status: { state: "working" }, final: false });
    expect(statusText(events[0]!)).toBe("working on: hello");
    expect(events[1]!.data.result.artifact).toMatchObject({ name: "shout", parts: [{ type: "text", text: "HEL" }] });
    expect(events[2]!.data.result.artifact).toMatchObject({ append: true, lastChunk: true, parts: [{ type: "text", text: "LO" }] });
    expect(events[3]!.data.result).toMatchObject({ id: "v01-1", status: { state: "completed" }, final: true });
    expect(statusText(events[3]!)).toBe("done");

    const call = lastCall(v1);
    expect(call).toMatchObject({ method: "SendStreamingMessage", version: "1.0" });
    expect(call.params.message.role).toBe("ROLE_USER");
    expect(call.params.message.parts).toEqual([{ text: "hello" }]);
    expect(call.params.message.taskId).toBeUndefined(); // the agent makes its own task id
    expect(call.params.message.contextId).toBe("sess-1");

    const got = await rpc(router.url, "tasks/get", { id: "v01-1" });
    expect(got.result.artifacts[0].parts).toEqual([{ type: "text", text: "HELLO" }]);
  });

  test("input-required, then the follow-up on the same v0.1 task continues the agent's own task", async () => {
    const first = await rpc(router.url, "tasks/send", { id: "v01-2", message: userMessage("ask"), metadata: { agent: "sdk" } });
    expect(first.result.status).toMatchObject({ state: "input-required", message: { parts: [{ type: "text", text: "which one?" }] } });
    const upstreamTaskId = v1.calls.at(-1)!;
    expect(upstreamTaskId.params.message.taskId).toBeUndefined();

    const second = await rpc(router.url, "tasks/send", { id: "v01-2", message: userMessage("the red one") });
    expect(second.result.status).toMatchObject({ state: "completed", message: { parts: [{ type: "text", text: "you said: the red one" }] } });
    const follow = lastCall(v1);
    expect(typeof follow.params.message.taskId).toBe("string");
    expect(follow.params.message.taskId).not.toBe("v01-2");
  });

  test("tasks/cancel reaches the agent as CancelTask on its own task id", async () => {
    const s = await openStream(router.url, "tasks/sendSubscribe", { id: "v01-3", message: userMessage("hang"), metadata: { agent: "sdk" } });
    const working = await s.next();
    expect(working!.data.result.status.state).toBe("working");
    const canceled = await rpc(router.url, "tasks/cancel", { id: "v01-3" });
    expect(canceled.result.status.state).toBe("canceled");
    const rest = await s.all();
    expect(rest.at(-1)!.data.result).toMatchObject({ status: { state: "canceled" }, final: true });
    const cancelCall = await v1.call("CancelTask"); // the router tells the agent without making the client wait
    expect(cancelCall.version).toBe("1.0");
    // It names the agent's own task, which the agent (asked directly with the SDK's client) holds canceled.
    const direct = await new ClientFactory().createFromUrl(v1.url);
    const upstream = await direct.getTask({ tenant: "", id: cancelCall.params.id, historyLength: undefined });
    expect(upstream.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
  });

  test("a non-streaming SDK agent (SendMessage) still gives one uniform stream", async () => {
    const s = await openStream(router.url, "tasks/sendSubscribe", { id: "v01-4", message: userMessage("quiet"), metadata: { agent: "sdk-plain" } });
    const events = await s.all();
    expect(events.map((e) => e.id)).toEqual(["1", "2"]);
    // The SDK's task store keeps the two chunks as two parts of the one artifact.
    expect(events[0]!.data.result.artifact.parts.map((p: { text: string }) => p.text).join("")).toBe("QUIET");
    expect(events[1]!.data.result).toMatchObject({ status: { state: "completed" }, final: true });
    expect(lastCall(v1Plain)).toMatchObject({ method: "SendMessage", version: "1.0" });
  });
});

describe("the SDK's own client through the router to the SDK agent", () => {
  test("v1.0 client -> router -> v1.0 agent: task, working, artifact chunks, completed", async () => {
    const client = await new ClientFactory().createFromUrl(`${router.url}/agents/sdk/`);
    const events = await collect(client.sendMessageStream({ tenant: "", message: sdkMessage("round trip"), configuration: undefined, metadata: undefined }));
    expect(cases(events)).toEqual(["task", "statusUpdate", "artifactUpdate", "artifactUpdate", "statusUpdate"]);
    const task = events[0]!.payload!.value as Task;
    const chunks = events.filter((e) => e.payload?.$case === "artifactUpdate").map((e) => e.payload!.value as TaskArtifactUpdateEvent);
    expect(chunks.map((c) => [sdkText(c.artifact?.parts), c.append])).toEqual([
      ["ROUND", false],
      [" TRIP", true],
    ]);
    const done = events.at(-1)!.payload!.value as { status: Task["status"] };
    expect(done.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    const got = await client.getTask({ tenant: "", id: task.id, historyLength: undefined });
    expect(sdkText(got.artifacts[0]?.parts)).toBe("ROUND TRIP");
  });

  test("v1.0 client -> router -> the SDK agent spoken to in v0.3 (message/stream, A2A-Version 0.3)", async () => {
    const client = await new ClientFactory().createFromUrl(`${router.url}/agents/sdk-v03/`);
    const events: StreamResponse[] = await collect(
      client.sendMessageStream({ tenant: "", message: sdkMessage("via v03"), configuration: undefined, metadata: undefined }),
    );
    expect(cases(events)).toEqual(["task", "statusUpdate", "artifactUpdate", "artifactUpdate", "statusUpdate"]);
    expect((events.at(-1)!.payload!.value as { status: Task["status"] }).status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    const call = lastCall(both);
    expect(call).toMatchObject({ method: "message/stream", version: "0.3" });
    expect(call.params.message).toMatchObject({ kind: "message", role: "user", parts: [{ kind: "text", text: "via v03" }] });
    expect(call.params.configuration.blocking).toBe(true);
  });

  test("a v0.1 client to the v0.3-spoken agent: multi-turn over message/send", async () => {
    const first = await rpc(router.url, "tasks/send", { id: "v01-5", message: userMessage("ask"), metadata: { agent: "sdk-v03" } });
    expect(first.result.status.state).toBe("input-required");
    expect(lastCall(both).method).toBe("message/stream");
    const second = await rpc(router.url, "tasks/send", { id: "v01-5", message: userMessage("blue") });
    expect(second.result.status).toMatchObject({ state: "completed", message: { parts: [{ type: "text", text: "you said: blue" }] } });
    expect(typeof lastCall(both).params.message.taskId).toBe("string");
  });
});
