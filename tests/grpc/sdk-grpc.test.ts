import { afterAll, beforeAll, describe, expect, test } from "@jest/globals";
import { TaskState, type StreamResponse, type Task } from "@a2a-js/sdk";
import { TaskNotFoundError, UnsupportedOperationError } from "@a2a-js/sdk/errors";
import { type Client, ClientFactory, ClientFactoryOptions } from "@a2a-js/sdk/client";
import { GrpcTransportFactory } from "@a2a-js/sdk/client/grpc";
import type { RunningRouter } from "../../router/index.js";
import { testRouter } from "../helpers/router.js";
import { closeSdkClient } from "./raw-client.js";
import { cases, collect, type Gate, gatedHubAgent, sdkMessage, sdkText, until } from "../interop/helpers.js";

/**
 * @a2a-js/sdk's own gRPC transport (A2A v1.0 gRPC binding) against the router's gRPC port (CONTRACT 17): the
 * SDK finds the `GRPC` interface in an agent's card, with the agent as its tenant, and speaks to it unchanged.
 */

let router: RunningRouter;
let hubAgent: Awaited<ReturnType<typeof gatedHubAgent>>;
const gates = new Map<string, Gate>();
const clients: Client[] = [];

beforeAll(async () => {
  router = await testRouter({ config: { grpc: { port: 0 } } });
  hubAgent = await gatedHubAgent(router.url, "gated", gates);
});

afterAll(async () => {
  for (const c of clients) closeSdkClient(c);
  for (const g of gates.values()) g.open();
  await hubAgent.close();
  await router.close();
});

/** A client that prefers gRPC, built from the agent's card as the SDK's docs say. */
async function grpcClient(agentId: string): Promise<Client> {
  const options = ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
    transports: [new GrpcTransportFactory()],
    preferredTransports: ["GRPC"],
  });
  const client = await new ClientFactory(options).createFromUrl(`${router.url}/agents/${agentId}/`);
  clients.push(client);
  return client;
}

const send = (text: string) => ({ tenant: "", message: sdkMessage(text), configuration: undefined, metadata: undefined });

describe("A2A gRPC binding with @a2a-js/sdk's GrpcTransport", () => {
  test("the card lists GRPC at host:port with the agent as tenant, and the SDK picks it", async () => {
    const client = await grpcClient("echo");
    const card = await client.getAgentCard();
    expect(card.supportedInterfaces.find((i) => i.protocolBinding === "GRPC")).toMatchObject({
      url: `127.0.0.1:${router.grpcPort}`,
      protocolVersion: "1.0",
      tenant: "echo",
    });
    expect(client.transport.protocolName).toBe("GRPC");
  });

  test("send waits for the turn and answers the Task; get finds it; an unknown id is TaskNotFoundError", async () => {
    const client = await grpcClient("echo");
    const task = (await client.sendMessage(send("hello grpc"))) as Task;
    expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(sdkText(task.status?.message?.parts)).toBe("hello grpc");
    const got = await client.getTask({ tenant: "", id: task.id, historyLength: 1 });
    expect(got.id).toBe(task.id);
    expect(got.history).toHaveLength(1);
    await expect(client.getTask({ tenant: "", id: "no-such-task", historyLength: undefined })).rejects.toBeInstanceOf(TaskNotFoundError);
  });

  test("stream: the Task first, then the updates, closed after the terminal state", async () => {
    const client = await grpcClient("echo");
    const events = await collect(client.sendMessageStream(send("streamed grpc")));
    expect(cases(events)).toEqual(["task", "statusUpdate", "statusUpdate"]);
    const done = events[2]!.payload!.value as { status: Task["status"] };
    expect(done.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
  });

  test("a hub agent: subscribe follows the live task; cancel cancels it; a finished task cannot be subscribed", async () => {
    const client = await grpcClient("gated");
    const it = client.sendMessageStream(send("grpc-live"))[Symbol.asyncIterator]();
    const first = (await it.next()).value as StreamResponse;
    const taskId = (first.payload!.value as Task).id;
    await until(() => gates.has("grpc-live"), "the agent to wait");
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
});
