import { afterAll, beforeAll, describe, expect, test } from "@jest/globals";
import type { Task } from "@a2a-js/sdk";
import { type Client, ClientFactory, ClientFactoryOptions, type RequestOptions } from "@a2a-js/sdk/client";
import { GrpcTransportFactory } from "@a2a-js/sdk/client/grpc";
import { TaskNotFoundError } from "@a2a-js/sdk/errors";
import { status as Status } from "@grpc/grpc-js";
import type { RunningRouter } from "../../router/index.js";
import { testRouter } from "../helpers/router.js";
import { collect, sdkMessage } from "../interop/helpers.js";
import { closeSdkClient, type Json, rawClient, statusOf } from "./raw-client.js";

/**
 * API keys over gRPC (CONTRACT 12 and 17): `authorization: Bearer <key>` metadata, the same keys as HTTP; a task
 * belongs to the key that made it; list, push configs and the extended card through @a2a-js/sdk's gRPC client.
 */

let router: RunningRouter;
let alice: Client;
const as = (key: string): RequestOptions => ({ serviceParameters: { authorization: `Bearer ${key}` } });
const A = as("alice-key");
const B = as("bob-key");

beforeAll(async () => {
  router = await testRouter({
    eliza: false,
    config: {
      grpc: { port: 0 },
      apiKeys: [
        { key: "alice-key", name: "alice" },
        { key: "bob-key", name: "bob" },
      ],
      push: { allowPrivateUrls: true },
      limits: { authFailuresPerMinute: 4 },
    },
  });
  const options = ClientFactoryOptions.createFrom(ClientFactoryOptions.default, { transports: [new GrpcTransportFactory()], preferredTransports: ["GRPC"] });
  alice = await new ClientFactory(options).createFromUrl(`${router.url}/agents/echo/`);
});

afterAll(async () => {
  closeSdkClient(alice);
  await router.close();
});

const send = (text: string) => ({ tenant: "", message: sdkMessage(text), configuration: undefined, metadata: undefined });
const listAll = (c: Client, options: RequestOptions) =>
  c.listTasks(
    {
      tenant: "",
      contextId: "",
      status: 0,
      pageSize: 50,
      pageToken: "",
      historyLength: undefined,
      statusTimestampAfter: undefined,
      includeArtifacts: undefined,
    },
    options,
  );

describe("the gRPC face with API keys", () => {
  test("list and push configs with a key; another key finds none of it", async () => {
    const task = (await alice.sendMessage(send("mine"), A)) as Task;
    expect((await listAll(alice, A)).tasks.map((t) => t.id)).toContain(task.id);
    expect((await listAll(alice, B)).tasks.map((t) => t.id)).not.toContain(task.id);

    const config = { tenant: "", id: "hook-1", taskId: task.id, url: "http://127.0.0.1:9/hook", token: "t", authentication: undefined };
    expect(await alice.createTaskPushNotificationConfig(config, A)).toMatchObject({ id: "hook-1", taskId: task.id, url: config.url });
    expect(await alice.getTaskPushNotificationConfig({ tenant: "", taskId: task.id, id: "hook-1" }, A)).toMatchObject({ id: "hook-1" });
    const listed = await alice.listTaskPushNotificationConfig({ tenant: "", taskId: task.id, pageSize: 0, pageToken: "" }, A);
    expect(listed.configs.map((c) => c.id)).toEqual(["hook-1"]);

    for (const call of [
      () => alice.getTask({ tenant: "", id: task.id, historyLength: undefined }, B),
      () => alice.cancelTask({ tenant: "", id: task.id, metadata: undefined }, B),
      () => collect(alice.resubscribeTask({ tenant: "", id: task.id }, B)),
      () => alice.getTaskPushNotificationConfig({ tenant: "", taskId: task.id, id: "hook-1" }, B),
      () => alice.createTaskPushNotificationConfig({ ...config, id: "hook-2" }, B),
    ])
      await expect(call()).rejects.toBeInstanceOf(TaskNotFoundError);

    await alice.deleteTaskPushNotificationConfig({ tenant: "", taskId: task.id, id: "hook-1" }, A);
    expect((await alice.listTaskPushNotificationConfig({ tenant: "", taskId: task.id, pageSize: 0, pageToken: "" }, A)).configs).toEqual([]);
  });

  test("the extended card names the agent's gRPC interface", async () => {
    const card = await alice.getAgentCard(A);
    expect(card.capabilities?.extendedAgentCard).toBe(true);
    expect(card.supportedInterfaces.find((i) => i.protocolBinding === "GRPC")).toMatchObject({ url: `127.0.0.1:${router.grpcPort}`, tenant: "echo" });
    // GetExtendedAgentCard itself: the tenant's card, or without one the router's (whose GRPC interface has no tenant).
    const raw = rawClient(`127.0.0.1:${router.grpcPort}`);
    const auth = { authorization: "Bearer alice-key" };
    const echo = await raw.unary("GetExtendedAgentCard", { tenant: "echo" }, auth);
    expect(echo.supportedInterfaces).toContainEqual({ url: `127.0.0.1:${router.grpcPort}`, protocolBinding: "GRPC", protocolVersion: "1.0", tenant: "echo" });
    const own = await raw.unary("GetExtendedAgentCard", {}, auth);
    expect(own.name).toBe("a2a-router");
    expect(own.supportedInterfaces).toContainEqual({ url: `127.0.0.1:${router.grpcPort}`, protocolBinding: "GRPC", protocolVersion: "1.0" });
    raw.close();
  });

  test("a missing or wrong key is UNAUTHENTICATED; past authFailuresPerMinute even a good key is RESOURCE_EXHAUSTED", async () => {
    const raw = rawClient(`127.0.0.1:${router.grpcPort}`);
    const get = (metadata: Record<string, string>) => raw.unary("GetTask", { id: "x" }, metadata).catch((e: unknown) => statusOf(e));
    expect(((await get({})) as Json).code).toBe(Status.UNAUTHENTICATED);
    expect(((await get({ authorization: "Bearer nope" })) as Json).code).toBe(Status.UNAUTHENTICATED);
    expect(((await get({ authorization: "Bearer alice-key" })) as Json).code).toBe(Status.NOT_FOUND);
    await expect(alice.sendMessage(send("no key"))).rejects.toMatchObject({ status: Status.UNAUTHENTICATED });
    await get({ "x-api-key": "wrong" });
    const limited = (await get({ authorization: "Bearer alice-key" })) as Json;
    expect(limited.code).toBe(Status.RESOURCE_EXHAUSTED);
    expect(limited.details).toMatch(/too many failed authentications/);
    raw.close();
  });
});
