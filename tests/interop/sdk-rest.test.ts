import { afterAll, beforeAll, describe, expect, test } from "@jest/globals";
import { TaskState, type StreamResponse, type Task } from "@a2a-js/sdk";
import { TaskNotFoundError, UnsupportedOperationError } from "@a2a-js/sdk/errors";
import { type Client, ClientFactory, ClientFactoryOptions, RestTransportFactory } from "@a2a-js/sdk/client";
import type { RunningRouter } from "../../router/index.js";
import { testRouter } from "../helpers/router.js";
import { SseStream } from "../helpers/rpc.js";
import { cases, collect, type Gate, gatedHubAgent, sdkMessage, sdkText, until } from "./helpers.js";

/**
 * @a2a-js/sdk's own REST transport (A2A v1.0 HTTP+JSON) against `/agents/{id}/rest` (CONTRACT 13): the SDK
 * finds the binding in the router's card and speaks to it as to any A2A agent.
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

/** A client that prefers HTTP+JSON, built from the agent's card as the SDK's docs say. */
async function restClient(agentId: string): Promise<Client> {
  const options = ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
    transports: [new RestTransportFactory()],
    preferredTransports: ["HTTP+JSON"],
  });
  return new ClientFactory(options).createFromUrl(`${router.url}/agents/${agentId}/`);
}

const send = (text: string) => ({ tenant: "", message: sdkMessage(text), configuration: undefined, metadata: undefined });

describe("A2A HTTP+JSON binding with @a2a-js/sdk's RestTransport", () => {
  test("the card advertises HTTP+JSON at /agents/{id}/rest and the SDK picks it", async () => {
    const client = await restClient("echo");
    const card = await client.getAgentCard();
    expect(card.supportedInterfaces.find((i) => i.protocolBinding === "HTTP+JSON")).toMatchObject({
      url: `${router.url}/agents/echo/rest`,
      protocolVersion: "1.0",
    });
  });

  test("send waits for the turn and answers the Task; get finds it; an unknown id is TaskNotFoundError", async () => {
    const client = await restClient("echo");
    const task = (await client.sendMessage(send("hello rest"))) as Task;
    expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(sdkText(task.status?.message?.parts)).toBe("hello rest");
    const got = await client.getTask({ tenant: "", id: task.id, historyLength: 1 });
    expect(got.id).toBe(task.id);
    expect(got.history).toHaveLength(1);
    await expect(client.getTask({ tenant: "", id: "no-such-task", historyLength: undefined })).rejects.toBeInstanceOf(TaskNotFoundError);
  });

  test("stream: the Task first, then the updates, closed after the terminal state", async () => {
    const client = await restClient("echo");
    const events = await collect(client.sendMessageStream(send("streamed rest")));
    expect(cases(events)).toEqual(["task", "statusUpdate", "statusUpdate"]);
    const done = events[2]!.payload!.value as { status: Task["status"] };
    expect(done.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
  });

  test("a hub agent: resubscribe follows the live task; cancel cancels it; a finished task cannot be subscribed", async () => {
    const client = await restClient("gated");
    const it = client.sendMessageStream(send("rest-live"))[Symbol.asyncIterator]();
    const first = (await it.next()).value as StreamResponse;
    const taskId = (first.payload!.value as Task).id;
    await until(() => gates.has("rest-live"), "the agent to wait");
    const resub = client.resubscribeTask({ tenant: "", id: taskId })[Symbol.asyncIterator]();
    expect(((await resub.next()).value as StreamResponse).payload?.$case).toBe("task");
    const canceled = await client.cancelTask({ tenant: "", id: taskId, metadata: undefined });
    expect(canceled.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
    const rest: StreamResponse[] = [];
    for (let r = await resub.next(); !r.done; r = await resub.next()) rest.push(r.value);
    const last = rest.at(-1)!.payload!.value as { status: Task["status"] };
    expect(last.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
    await it.return?.(undefined);
    await expect(client.resubscribeTask({ tenant: "", id: taskId }).next()).rejects.toBeInstanceOf(UnsupportedOperationError);
  });

  test("SSE ids are the log's seqs and Last-Event-ID resumes exactly after them", async () => {
    const res = await fetch(`${router.url}/agents/echo/rest/message:stream`, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "text/event-stream" },
      body: JSON.stringify({ message: { messageId: "m1", role: "ROLE_USER", parts: [{ text: "ids" }] } }),
    });
    expect(res.headers.get("content-type")).toMatch(/^text\/event-stream/);
    const text = await res.text();
    const ids = [...text.matchAll(/^id: (\d+)$/gm)].map((m) => Number(m[1]));
    expect(ids).toEqual([1, 2]);
    const taskId = JSON.parse(/^data: (.*)$/m.exec(text)![1]!).task.id as string;
    // The proto's GET mapping of SubscribeToTask, as a browser EventSource would resume it.
    const controller = new AbortController();
    const get = await fetch(`${router.url}/agents/echo/rest/tasks/${taskId}:subscribe`, { headers: { "last-event-id": "1" }, signal: controller.signal });
    const events = await new SseStream(get, controller).all();
    expect(events.map((e) => e.id)).toEqual(["2"]);
    expect(events[0]!.data.statusUpdate.status.state).toBe("TASK_STATE_COMPLETED");
  });

  test("errors are google.rpc.Status bodies with the A2A reason; unknown paths are JSON 404s", async () => {
    const bad = await fetch(`${router.url}/agents/echo/rest/message:send`, { method: "POST", headers: { "content-type": "application/json" }, body: "{" });
    expect(bad.status).toBe(400);
    const body = (await bad.json()) as {
      error: { code: number; status: string; message: string; details: Array<{ reason: string; metadata?: Record<string, string> }> };
    };
    expect(body.error).toMatchObject({ code: 400, status: "INVALID_ARGUMENT" });
    expect(body.error.details[0]).toMatchObject({ reason: "INVALID_PARAMS", metadata: { field: "body" } });
    const missing = await fetch(`${router.url}/agents/echo/rest/nothing-here`);
    expect(missing.status).toBe(404);
    expect(((await missing.json()) as { error: { status: string } }).error.status).toBe("NOT_FOUND");
    const list = await fetch(`${router.url}/agents/echo/rest/tasks?pageSize=abc`);
    expect(list.status).toBe(400);
    expect(((await list.json()) as { error: { message: string } }).error.message).toMatch(/pageSize/);
  });
});
