import { afterAll, beforeAll, describe, expect, test } from "@jest/globals";
import { TaskState, type StreamResponse, type Task } from "@a2a-js/sdk";
import { TaskNotFoundError } from "@a2a-js/sdk/errors";
import { Client, ClientFactory, ClientFactoryOptions, JsonRpcTransportFactory } from "@a2a-js/sdk/client";
import { LegacyJsonRpcTransport } from "@a2a-js/sdk/compat/v0_3/client";
import type { RunningRouter } from "../../router/index.js";
import { testRouter } from "../helpers/router.js";
import { cases, collect, type Gate, gatedHubAgent, sdkMessage, sdkText } from "./helpers.js";

/**
 * @a2a-js/sdk's own clients (v1.0 JSON-RPC via ClientFactory, and its v0.3 legacy transport) against the
 * router's per-agent endpoints, with the hosted echo agent and a WebSocket hub agent. Nothing here is
 * adapted to the router: the SDK reads the router's card and speaks as it would to any A2A agent.
 */

let router: RunningRouter;
let hubAgent: Awaited<ReturnType<typeof gatedHubAgent>>;
const gates = new Map<string, Gate>();

beforeAll(async () => {
  router = await testRouter();
  hubAgent = await gatedHubAgent(router.url, "gated", gates);
});

afterAll(async () => {
  for (const g of gates.values()) g.open();
  await hubAgent.close();
  await router.close();
});

/** A v1.0 client for one agent, built the way the SDK's docs say: from the agent's card URL. */
async function v1Client(agentId: string): Promise<Client> {
  // The card URL is resolved relative to the base, so the base ends with a slash.
  return new ClientFactory().createFromUrl(`${router.url}/agents/${agentId}/`);
}

/** The SDK's v0.3 transport on the same endpoint, under the SDK's own Client. */
async function v03Client(agentId: string): Promise<Client> {
  const card = await (await fetch(`${router.url}/agents/${agentId}/.well-known/agent-card.json`)).json();
  return new Client(new LegacyJsonRpcTransport({ endpoint: `${router.url}/agents/${agentId}` }), card as never);
}

function asTask(result: unknown): Task {
  expect(result).toHaveProperty("status");
  return result as Task;
}

describe("@a2a-js/sdk v1.0 client (ClientFactory, JSON-RPC)", () => {
  test("finds the agent from its card and picks the v1.0 JSON-RPC interface at /agents/{id}", async () => {
    const client = await v1Client("echo");
    expect(client.protocolVersion).toBe("1.0");
    const card = await client.getAgentCard();
    expect(card.supportedInterfaces[0]).toMatchObject({ url: `${router.url}/agents/echo`, protocolBinding: "JSONRPC", protocolVersion: "1.0" });
    expect(card.skills[0]?.id).toBe("echo");
    expect(card.capabilities?.streaming).toBe(true);
  });

  test("sendMessage waits for the turn and answers the Task", async () => {
    const client = await v1Client("echo");
    const task = asTask(await client.sendMessage({ tenant: "", message: sdkMessage("hello sdk"), configuration: undefined, metadata: undefined }));
    expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(sdkText(task.status?.message?.parts)).toBe("hello sdk");
    expect(task.contextId).not.toBe("");
    expect(task.history[0]?.role).toBe(1);
  });

  test("sendMessageStream: the Task first, then status updates, closed after the terminal state", async () => {
    const client = await v1Client("echo");
    const events = await collect(client.sendMessageStream({ tenant: "", message: sdkMessage("streamed"), configuration: undefined, metadata: undefined }));
    expect(cases(events)).toEqual(["task", "statusUpdate", "statusUpdate"]);
    const [first, working, done] = events as [StreamResponse, StreamResponse, StreamResponse];
    const task = first.payload!.value as Task;
    const w = working.payload!.value as { taskId: string; status: Task["status"] };
    const d = done.payload!.value as { taskId: string; status: Task["status"] };
    expect(w.taskId).toBe(task.id);
    expect(w.status?.state).toBe(TaskState.TASK_STATE_WORKING);
    expect(sdkText(w.status?.message?.parts)).toBe("streamed");
    expect(d.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
  });

  test("getTask and listTasks find the task; an unknown id is TaskNotFoundError", async () => {
    const client = await v1Client("echo");
    const sent = asTask(await client.sendMessage({ tenant: "", message: sdkMessage("find me"), configuration: undefined, metadata: undefined }));
    const got = await client.getTask({ tenant: "", id: sent.id, historyLength: 1 });
    expect(got.id).toBe(sent.id);
    expect(got.history).toHaveLength(1);
    const listed = await client.listTasks({
      tenant: "",
      contextId: sent.contextId,
      status: 0,
      pageSize: 10,
      pageToken: "",
      historyLength: undefined,
      statusTimestampAfter: undefined,
      includeArtifacts: undefined,
    });
    expect(listed.tasks.map((t) => t.id)).toEqual([sent.id]);
    expect(listed.nextPageToken).toBe("");
    await expect(client.getTask({ tenant: "", id: "no-such-task", historyLength: undefined })).rejects.toBeInstanceOf(TaskNotFoundError);
  });

  test("a follow-up naming a task the router never made is TaskNotFoundError", async () => {
    const client = await v1Client("echo");
    const message = sdkMessage("who?", { taskId: "invented-by-client" });
    await expect(client.sendMessage({ tenant: "", message, configuration: undefined, metadata: undefined })).rejects.toBeInstanceOf(TaskNotFoundError);
  });

  test("a hub agent: resubscribeTask opens with the Task and follows the live task to its end", async () => {
    const client = await v1Client("gated");
    const stream = client.sendMessageStream({ tenant: "", message: sdkMessage("v1-resub"), configuration: undefined, metadata: undefined });
    const it = stream[Symbol.asyncIterator]();
    const first = (await it.next()).value as StreamResponse;
    expect(first.payload?.$case).toBe("task");
    const taskId = (first.payload!.value as Task).id;
    const step1 = (await it.next()).value as StreamResponse;
    expect(step1.payload?.$case).toBe("statusUpdate");
    await it.return?.(undefined); // the client goes away; the task goes on

    const resub = client.resubscribeTask({ tenant: "", id: taskId });
    const rit = resub[Symbol.asyncIterator]();
    const opening = (await rit.next()).value as StreamResponse;
    expect(opening.payload?.$case).toBe("task");
    expect((opening.payload!.value as Task).status?.state).toBe(TaskState.TASK_STATE_WORKING);
    gates.get("v1-resub")!.open();
    const rest: StreamResponse[] = [];
    for (let r = await rit.next(); !r.done; r = await rit.next()) rest.push(r.value);
    const last = rest.at(-1)!.payload!.value as { status: Task["status"] };
    expect(last.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(sdkText(last.status?.message?.parts)).toBe("step 1 step 2");
  });

  test("a hub agent: cancelTask cancels the running task", async () => {
    const client = await v1Client("gated");
    const it = client
      .sendMessageStream({ tenant: "", message: sdkMessage("v1-cancel"), configuration: undefined, metadata: undefined })
      [Symbol.asyncIterator]();
    const taskId = (((await it.next()).value as StreamResponse).payload!.value as Task).id;
    await it.next(); // step 1: the agent is working
    const canceled = await client.cancelTask({ tenant: "", id: taskId, metadata: undefined });
    expect(canceled.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
    const rest: StreamResponse[] = [];
    for (let r = await it.next(); !r.done; r = await it.next()) rest.push(r.value);
    expect((rest.at(-1)!.payload!.value as { status: Task["status"] }).status?.state).toBe(TaskState.TASK_STATE_CANCELED);
    await expect(client.resubscribeTask({ tenant: "", id: taskId }).next()).rejects.toThrow(/not supported|already canceled/i);
  });

  test("a client with the SDK's legacy compat on still picks v1.0 from the router's card", async () => {
    const factory = new ClientFactory(
      ClientFactoryOptions.createFrom(ClientFactoryOptions.default, { transports: [new JsonRpcTransportFactory({ legacyCompat: { enabled: true } })] }),
    );
    const client = await factory.createFromUrl(`${router.url}/agents/echo/`);
    expect(client.protocolVersion).toBe("1.0");
    expect(asTask(await client.sendMessage({ tenant: "", message: sdkMessage("compat"), configuration: undefined, metadata: undefined })).status?.state).toBe(
      TaskState.TASK_STATE_COMPLETED,
    );
  });
});

describe("@a2a-js/sdk v0.3 legacy transport (message/send & co., A2A-Version 0.3)", () => {
  test("sendMessage, getTask", async () => {
    const client = await v03Client("echo");
    expect(client.protocolVersion).toBe("0.3");
    const task = asTask(await client.sendMessage({ tenant: "", message: sdkMessage("legacy hello"), configuration: undefined, metadata: undefined }));
    expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(sdkText(task.status?.message?.parts)).toBe("legacy hello");
    const got = await client.getTask({ tenant: "", id: task.id, historyLength: undefined });
    expect(got.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
  });

  test("sendMessageStream: kind-tagged status updates, ending with final", async () => {
    const client = await v03Client("echo");
    const events = await collect(client.sendMessageStream({ tenant: "", message: sdkMessage("legacy stream"), configuration: undefined, metadata: undefined }));
    expect(cases(events)).toEqual(["statusUpdate", "statusUpdate"]);
    expect((events[1]!.payload!.value as { status: Task["status"] }).status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
  });

  test("a hub agent: resubscribeTask and cancelTask", async () => {
    const client = await v03Client("gated");
    const it = client
      .sendMessageStream({ tenant: "", message: sdkMessage("v03-resub"), configuration: undefined, metadata: undefined })
      [Symbol.asyncIterator]();
    const step1 = (await it.next()).value as StreamResponse;
    const taskId = (step1.payload!.value as { taskId: string }).taskId;
    await it.return?.(undefined);

    // v0.3 resubscribe: the current status first, then live events.
    const rit = client.resubscribeTask({ tenant: "", id: taskId })[Symbol.asyncIterator]();
    const opening = (await rit.next()).value as StreamResponse;
    expect(opening.payload?.$case).toBe("statusUpdate");
    expect((opening.payload!.value as { status: Task["status"] }).status?.state).toBe(TaskState.TASK_STATE_WORKING);

    const canceled = await client.cancelTask({ tenant: "", id: taskId, metadata: undefined });
    expect(canceled.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
    const rest: StreamResponse[] = [];
    for (let r = await rit.next(); !r.done; r = await rit.next()) rest.push(r.value);
    expect((rest.at(-1)!.payload!.value as { status: Task["status"] }).status?.state).toBe(TaskState.TASK_STATE_CANCELED);
  });

  test("listTasks has no v0.3 JSON-RPC binding: the SDK refuses it itself", async () => {
    const client = await v03Client("echo");
    await expect(
      client.listTasks({
        tenant: "",
        contextId: "",
        status: 0,
        pageSize: undefined,
        pageToken: "",
        historyLength: undefined,
        statusTimestampAfter: undefined,
        includeArtifacts: undefined,
      }),
    ).rejects.toThrow(/tasks\/list/);
  });
});
