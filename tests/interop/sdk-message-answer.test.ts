import { afterAll, beforeAll, describe, expect, test } from "@jest/globals";
import { randomUUID } from "node:crypto";
import type { RunningRouter } from "../../router/index.js";
import { rpc, type Json } from "../helpers/rpc.js";
import { testRouter } from "../helpers/router.js";
import { expectRouterIdsOnly } from "./clients.js";
import { SdkAgent } from "./sdk-agent.js";

/**
 * An upstream agent that answers a send with a bare Message, not a Task (A2A allows either; the TCK's
 * DM-MSG-001). The router keeps a completed task for the turn and marks it as the hub marks a protocol 2
 * agent's bare Message, so a v0.3 or v1.0 client's blocking send (JSON-RPC or REST) gets the Message itself,
 * scoped to the router's context; a v0.1 client, whose send answers only with a task, reads the completed
 * task. The agents are @a2a-js/sdk servers that keep their own task and context ids: none reaches a client.
 */

let agents: Record<string, SdkAgent>;
let router: RunningRouter;

beforeAll(async () => {
  agents = {
    "v10-stream": await new SdkAgent({ streaming: true, ownContext: true }).start(),
    "v10-plain": await new SdkAgent({ streaming: false, ownContext: true }).start(),
    "v03-stream": await new SdkAgent({ streaming: true, legacyCompat: true, ownContext: true }).start(),
    "rest-stream": await new SdkAgent({ streaming: true, binding: "HTTP+JSON", ownContext: true }).start(),
    "rest-plain": await new SdkAgent({ streaming: false, binding: "HTTP+JSON", ownContext: true }).start(),
  };
  router = await testRouter({
    config: {
      agents: Object.entries(agents).map(([id, a]) => ({ id, url: a.url, ...(id.startsWith("v03") && { protocol: "0.3" }) })),
    },
  });
});

afterAll(async () => {
  await router.close();
  await Promise.all(Object.values(agents).map((a) => a.stop()));
});

const V10 = { "A2A-Version": "1.0" };

/** One blocking send of "reply" on a context the client names; the Message result, as the client reads it. */
type Send = (agentId: string, contextId: string) => Promise<Json>;

const SENDS: Array<[string, Send, (message: Json, contextId: string) => void]> = [
  [
    "v0.3 JSON-RPC message/send",
    async (agentId, contextId) => {
      const message = { kind: "message", messageId: randomUUID(), role: "user", parts: [{ kind: "text", text: "reply" }], contextId };
      const res = await rpc(router.url, "message/send", { message }, { path: `/agents/${agentId}` });
      expect(res.error).toBeUndefined();
      return res.result;
    },
    (m, contextId) => {
      expect(m).toEqual({ kind: "message", messageId: expect.any(String), role: "agent", parts: [{ kind: "text", text: "replied to: reply" }], contextId });
    },
  ],
  [
    "v1.0 JSON-RPC SendMessage",
    async (agentId, contextId) => {
      const message = { messageId: randomUUID(), role: "ROLE_USER", parts: [{ text: "reply" }], contextId };
      const res = await rpc(router.url, "SendMessage", { message }, { path: `/agents/${agentId}`, headers: V10 });
      expect(res.error).toBeUndefined();
      expect(Object.keys(res.result)).toEqual(["message"]);
      return res.result.message;
    },
    (m, contextId) => {
      expect(m).toEqual({ messageId: expect.any(String), role: "ROLE_AGENT", parts: [{ text: "replied to: reply" }], contextId });
    },
  ],
  [
    "v1.0 REST message:send",
    async (agentId, contextId) => {
      const message = { messageId: randomUUID(), role: "ROLE_USER", parts: [{ text: "reply" }], contextId };
      const res = await fetch(`${router.url}/agents/${agentId}/rest/message:send`, {
        method: "POST",
        headers: { "content-type": "application/json", ...V10 },
        body: JSON.stringify({ message }),
      });
      expect(res.status).toBe(200);
      const body = (await res.json()) as Json;
      expect(Object.keys(body)).toEqual(["message"]);
      return body.message;
    },
    (m, contextId) => {
      expect(m).toEqual({ messageId: expect.any(String), role: "ROLE_AGENT", parts: [{ text: "replied to: reply" }], contextId });
    },
  ],
];

describe.each(["v10-stream", "v10-plain", "v03-stream", "rest-stream", "rest-plain"])("an SDK agent (%s) that answers with a bare Message", (agentId) => {
  test.each(SENDS)("%s: the result is the Message, in the router's ids; the task is kept, completed", async (_name, send, check) => {
    const agent = agents[agentId]!;
    const before = agent.tasks.length;
    const contextId = `ctx-${randomUUID()}`;
    const message = await send(agentId, contextId);
    check(message, contextId);

    // The turn is a task of the router's all the same: listed in its context, completed with the Message.
    const listed = await rpc(router.url, "ListTasks", { contextId }, { path: `/agents/${agentId}`, headers: V10 });
    expect(listed.error).toBeUndefined();
    expect(listed.result.tasks).toHaveLength(1);
    const task = listed.result.tasks[0];
    expect(task.status).toMatchObject({ state: "TASK_STATE_COMPLETED", message: { role: "ROLE_AGENT", parts: [{ text: "replied to: reply" }] } });
    const got = await rpc(router.url, "GetTask", { id: task.id }, { path: `/agents/${agentId}`, headers: V10 });
    expect(got.result).toMatchObject({ id: task.id, contextId, status: { state: "TASK_STATE_COMPLETED" } });
    expectRouterIdsOnly(agent, before, [message, listed, got]);
  });

  test("a v0.1 client's send answers with the completed task carrying the Message's text", async () => {
    const agent = agents[agentId]!;
    const before = agent.tasks.length;
    const id = randomUUID();
    const res = await rpc(
      router.url,
      "tasks/send",
      { id, message: { role: "user", parts: [{ type: "text", text: "reply" }] } },
      { path: `/agents/${agentId}` },
    );
    expect(res.result).toMatchObject({ id, status: { state: "completed", message: { role: "agent", parts: [{ type: "text", text: "replied to: reply" }] } } });
    expectRouterIdsOnly(agent, before, [res]);
  });
});
