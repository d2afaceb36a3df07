/**
 * CONTRACT 16 and 12 on /mcp: API keys as Bearer, a session bound to the key that opened it, keys limited to
 * some agents see those tools only, foreign Origins refused, and hosts told when the tool list changes.
 */
import { afterAll, beforeAll, describe, expect, test } from "@jest/globals";
import { ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { connectAgent } from "../../agents/sdk/index.js";
import { startChatRig, type ChatRig } from "../chat/helpers.js";
import { memoryLogger } from "../sdk/helpers.js";
import { until } from "../helpers/until.js";
import { connectMcp } from "./helpers.js";

let rig: ChatRig;

beforeAll(async () => {
  rig = await startChatRig({ apiKeys: ["key-all", { key: "key-echo", name: "echo-only", agents: ["echo"] }] });
});

afterAll(async () => {
  await rig.close();
});

const initialize = (headers: Record<string, string>) =>
  fetch(`${rig.router.url}/mcp`, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "t", version: "1" } },
    }),
  });

describe("auth", () => {
  test("no key or a wrong key: 401 before any session exists", async () => {
    expect((await initialize({})).status).toBe(401);
    expect((await initialize({ authorization: "Bearer nope" })).status).toBe(401);
    await expect(connectMcp(rig.router.url, { apiKey: "nope" })).rejects.toThrow(/invalid API key/);
  });

  test("a key limited to some agents lists and calls those tools only", async () => {
    const peer = await connectMcp(rig.router.url, { apiKey: "key-echo" });
    try {
      expect((await peer.client.listTools()).tools.map((t) => t.name)).toEqual(["echo"]);
      await expect(peer.client.callTool({ name: "eliza", arguments: { message: "hi" } })).rejects.toThrow(/Unknown tool: eliza/);
    } finally {
      await peer.close();
    }
  });

  test("a session belongs to the key that opened it: another key naming it gets 404", async () => {
    const peer = await connectMcp(rig.router.url, { apiKey: "key-all" });
    try {
      const sessionId = peer.transport.sessionId!;
      const res = await fetch(`${rig.router.url}/mcp`, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          authorization: "Bearer key-echo",
          "mcp-session-id": sessionId,
          "mcp-protocol-version": "2025-11-25",
        },
        body: JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/list" }),
      });
      expect(res.status).toBe(404);
      expect(await res.json()).toMatchObject({ error: { message: "Session not found" } });
      // A forged or altered id is no session either.
      const forged = await fetch(`${rig.router.url}/mcp`, {
        method: "GET",
        headers: { accept: "text/event-stream", authorization: "Bearer key-all", "mcp-session-id": `${sessionId.slice(0, -2)}xx` },
      });
      expect(forged.status).toBe(404);
    } finally {
      await peer.close();
    }
  });
});

test("DELETE ends the session: its id is refused from then on", async () => {
  const peer = await connectMcp(rig.router.url, { apiKey: "key-all" });
  const sessionId = peer.transport.sessionId!;
  const headers = { authorization: "Bearer key-all", "mcp-session-id": sessionId };
  expect((await fetch(`${rig.router.url}/mcp`, { method: "DELETE", headers })).status).toBe(200);
  const after = await fetch(`${rig.router.url}/mcp`, { headers: { ...headers, accept: "text/event-stream" } });
  expect(after.status).toBe(404);
  await peer.client.close();
});

describe("Origin", () => {
  test("a foreign Origin is refused with 403 on POST and on the GET stream", async () => {
    const post = await initialize({ authorization: "Bearer key-all", origin: "https://evil.example" });
    expect(post.status).toBe(403);
    const get = await fetch(`${rig.router.url}/mcp`, {
      headers: { accept: "text/event-stream", authorization: "Bearer key-all", origin: "https://evil.example" },
    });
    expect(get.status).toBe(403);
    expect((await initialize({ authorization: "Bearer key-all", origin: rig.router.url })).status).toBe(200);
  });
});

describe("notifications/tools/list_changed", () => {
  test("sent when a hub agent comes and when it goes", async () => {
    const peer = await connectMcp(rig.router.url, { apiKey: "key-all" });
    let changes = 0;
    peer.client.setNotificationHandler(ToolListChangedNotificationSchema, () => void changes++);
    try {
      const names = async () => (await peer.client.listTools()).tools.map((t) => t.name);
      expect(await names()).not.toContain("newcomer");
      const agent = connectAgent({ url: `${rig.router.url.replace(/^http/, "ws")}/hub`, name: "newcomer", logger: memoryLogger() });
      agent.skill({ name: "hi", description: "says hi" }, async () => "hi");
      await agent.ready;
      await until(() => changes === 1);
      expect(await names()).toContain("newcomer");
      await agent.close();
      await until(() => changes === 2);
      expect(await names()).not.toContain("newcomer");
    } finally {
      await peer.close();
    }
  });
});
