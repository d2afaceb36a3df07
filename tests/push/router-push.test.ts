import { afterAll, beforeAll, describe, expect, test } from "@jest/globals";
import type { StreamResponse } from "@a2a-js/sdk";
import { ClientFactory } from "@a2a-js/sdk/client";
import type { RunningRouter } from "../../router/index.js";
import { getJson, openStream, rpc, userMessage } from "../helpers/rpc.js";
import { testRouter } from "../helpers/router.js";
import { type Gate, gatedHubAgent, sdkMessage } from "../interop/helpers.js";
import { WebhookReceiver } from "./webhook.js";

/** Push notifications end to end: each dialect's methods on the router, a webhook receiver on loopback. */

let router: RunningRouter;
let hooks: WebhookReceiver;
let hub: Awaited<ReturnType<typeof gatedHubAgent>>;
const gates = new Map<string, Gate>();

beforeAll(async () => {
  hooks = await new WebhookReceiver().start();
  hooks.respond = (path) => (path.startsWith("/hang") ? "hang" : 200);
  router = await testRouter();
  hub = await gatedHubAgent(router.url, "gated", gates);
});

afterAll(async () => {
  for (const g of gates.values()) g.open();
  await hub.close();
  await router.close();
  await hooks.stop();
});

const v03Message = (text: string) => ({ kind: "message", messageId: `m-${text}`, role: "user", parts: [{ kind: "text", text }] });
const v10Message = (text: string) => ({ messageId: `m-${text}`, role: "ROLE_USER", parts: [{ text }] });

test("the cards say push notifications work", async () => {
  expect((await getJson(`${router.url}/.well-known/agent-card.json`)).capabilities.pushNotifications).toBe(true);
  expect((await getJson(`${router.url}/agents/echo/.well-known/agent.json`)).capabilities.pushNotifications).toBe(true);
});

describe("v0.1", () => {
  test("tasks/send with pushNotification: the whole turn is POSTed, with the token", async () => {
    const sent = await rpc(router.url, "tasks/send", {
      id: "p01-1",
      message: userMessage("ping"),
      metadata: { agent: "echo" },
      pushNotification: { url: `${hooks.url}/v01`, token: "t01" },
    });
    expect(sent.result.status.state).toBe("completed");
    const got = await hooks.waitFor("/v01", 2);
    expect(got.map((d) => [d.body.id, d.body.status.state, d.body.final])).toEqual([
      ["p01-1", "working", false],
      ["p01-1", "completed", true],
    ]);
    expect(got[0]!.headers["x-a2a-notification-token"]).toBe("t01");
  });

  test("tasks/pushNotification/set and get on a running task", async () => {
    const s = await openStream(router.url, "tasks/sendSubscribe", { id: "p01-2", message: userMessage("p01-2"), metadata: { agent: "gated" } });
    await s.next(); // step 1: the task is running
    const set = await rpc(router.url, "tasks/pushNotification/set", { id: "p01-2", pushNotificationConfig: { url: `${hooks.url}/v01-set`, token: "k" } });
    expect(set.result).toMatchObject({ id: "p01-2", pushNotificationConfig: { url: `${hooks.url}/v01-set`, token: "k" } });
    const get = await rpc(router.url, "tasks/pushNotification/get", { id: "p01-2" });
    expect(get.result.pushNotificationConfig.url).toBe(`${hooks.url}/v01-set`);
    gates.get("p01-2")!.open();
    await s.all();
    const got = await hooks.waitFor("/v01-set", 2);
    expect(got.map((d) => d.body.status.state)).toEqual(["working", "completed"]);
  });

  test("a webhook that never answers does not slow the task", async () => {
    const sent = await rpc(router.url, "tasks/send", {
      id: "p01-3",
      message: userMessage("quick"),
      metadata: { agent: "echo" },
      pushNotification: { url: `${hooks.url}/hang` },
    });
    expect(sent.result.status.state).toBe("completed");
    await hooks.waitFor("/hang", 1, true);
  });
});

describe("v0.3", () => {
  test("message/send with configuration.pushNotificationConfig: the Task after each update", async () => {
    const sent = await rpc(router.url, "message/send", {
      message: v03Message("hello"),
      configuration: { pushNotificationConfig: { url: `${hooks.url}/v03`, token: "t03" } },
      metadata: { agent: "echo" },
    });
    expect(sent.result).toMatchObject({ kind: "task", status: { state: "completed" } });
    const got = await hooks.waitFor("/v03", 2);
    expect(got.every((d) => d.body.kind === "task" && d.body.id === sent.result.id)).toBe(true);
    expect(got[1]!.body.status.state).toBe("completed");
  });

  test("tasks/pushNotificationConfig/set, get, list, delete", async () => {
    const sent = await rpc(router.url, "message/send", { message: v03Message("cfg"), metadata: { agent: "echo" } });
    const taskId = sent.result.id;
    const config = { id: "c1", url: `${hooks.url}/v03-cfg`, authentication: { schemes: ["Bearer"], credentials: "cred" } };
    const set = await rpc(router.url, "tasks/pushNotificationConfig/set", { taskId, pushNotificationConfig: config });
    expect(set.result).toEqual({ taskId, pushNotificationConfig: config });
    await rpc(router.url, "tasks/pushNotificationConfig/set", { taskId, pushNotificationConfig: { id: "c2", url: `${hooks.url}/other` } });
    const get = await rpc(router.url, "tasks/pushNotificationConfig/get", { id: taskId, pushNotificationConfigId: "c1" });
    expect(get.result).toEqual({ taskId, pushNotificationConfig: config });
    const list = await rpc(router.url, "tasks/pushNotificationConfig/list", { id: taskId });
    expect(list.result.map((c: { pushNotificationConfig: { id: string } }) => c.pushNotificationConfig.id).sort()).toEqual(["c1", "c2"]);
    const del = await rpc(router.url, "tasks/pushNotificationConfig/delete", { id: taskId, pushNotificationConfigId: "c1" });
    expect(del).toMatchObject({ result: null });
    const after = await rpc(router.url, "tasks/pushNotificationConfig/list", { id: taskId });
    expect(after.result.map((c: { pushNotificationConfig: { id: string } }) => c.pushNotificationConfig.id)).toEqual(["c2"]);
    const bad = await rpc(router.url, "tasks/pushNotificationConfig/set", { taskId, pushNotificationConfig: { url: "mailto:x@y" } });
    expect(bad.error).toMatchObject({ code: -32602, data: { field: "pushNotificationConfig.url" } });
  });
});

describe("v1.0", () => {
  const v1 = { "A2A-Version": "1.0" };

  test("SendMessage with taskPushNotificationConfig: StreamResponses, Authorization from authentication", async () => {
    const sent = await rpc(
      router.url,
      "SendMessage",
      {
        message: v10Message("hi"),
        configuration: { taskPushNotificationConfig: { url: `${hooks.url}/v10`, authentication: { scheme: "Bearer", credentials: "c10" } } },
      },
      { path: "/agents/echo", headers: v1 },
    );
    expect(sent.result.task.status.state).toBe("TASK_STATE_COMPLETED");
    const got = await hooks.waitFor("/v10", 2);
    expect(got.map((d) => d.body.statusUpdate.status.state)).toEqual(["TASK_STATE_WORKING", "TASK_STATE_COMPLETED"]);
    expect(got[0]!.headers.authorization).toBe("Bearer c10");
    expect(got[0]!.headers["content-type"]).toBe("application/a2a+json");
  });

  test("Create, Get, List and Delete TaskPushNotificationConfig", async () => {
    const sent = await rpc(router.url, "SendMessage", { message: v10Message("cfg10") }, { path: "/agents/echo", headers: v1 });
    const taskId = sent.result.task.id;
    const created = await rpc(router.url, "CreateTaskPushNotificationConfig", { taskId, url: `${hooks.url}/v10-cfg`, token: "tk" }, { headers: v1 });
    expect(created.result).toEqual({ taskId, id: "default", url: `${hooks.url}/v10-cfg`, token: "tk" });
    const got = await rpc(router.url, "GetTaskPushNotificationConfig", { taskId, id: "default" }, { headers: v1 });
    expect(got.result).toEqual(created.result);
    const listed = await rpc(router.url, "ListTaskPushNotificationConfigs", { taskId }, { headers: v1 });
    expect(listed.result).toEqual({ configs: [created.result], nextPageToken: "" });
    const deleted = await rpc(router.url, "DeleteTaskPushNotificationConfig", { taskId, id: "default" }, { headers: v1 });
    expect(deleted.result).toEqual({});
    expect((await rpc(router.url, "ListTaskPushNotificationConfigs", { taskId }, { headers: v1 })).result).toEqual({ configs: [], nextPageToken: "" });
  });

  test("@a2a-js/sdk's client sets a webhook on a running hub task and it receives the rest of the task", async () => {
    const client = await new ClientFactory().createFromUrl(`${router.url}/agents/gated/`);
    const it = client.sendMessageStream({ tenant: "", message: sdkMessage("p10-sdk"), configuration: undefined, metadata: undefined })[Symbol.asyncIterator]();
    const taskId = (((await it.next()).value as StreamResponse).payload!.value as { id: string }).id;
    await it.next(); // step 1
    const created = await client.createTaskPushNotificationConfig({
      tenant: "",
      id: "sdk-hook",
      taskId,
      url: `${hooks.url}/sdk`,
      token: "s",
      authentication: undefined,
    });
    expect(created).toMatchObject({ id: "sdk-hook", taskId, url: `${hooks.url}/sdk` });
    gates.get("p10-sdk")!.open();
    for (let r = await it.next(); !r.done; r = await it.next());
    const got = await hooks.waitFor("/sdk", 2);
    expect(got.map((d) => d.body.statusUpdate.status.state)).toEqual(["TASK_STATE_WORKING", "TASK_STATE_COMPLETED"]);
  });
});
