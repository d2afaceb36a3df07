/** CONTRACT 16: the official MCP SDK client lists every agent as a tool and calls them, one turn per call. */
import { afterAll, beforeAll, describe, expect, test } from "@jest/globals";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { startChatRig, type ChatRig } from "../chat/helpers.js";
import { connectMcp, texts, type McpPeer } from "./helpers.js";

let rig: ChatRig;
let peer: McpPeer;

beforeAll(async () => {
  rig = await startChatRig();
  peer = await connectMcp(rig.router.url);
});

afterAll(async () => {
  await peer.close();
  await rig.close();
});

describe("tools/list", () => {
  test("one tool per online agent, named by id, described by its card and skills, with the shared input", async () => {
    const { tools } = await peer.client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(["artist", "echo", "eliza", "shouter", "stepper"]);
    const echo = tools.find((t) => t.name === "echo")!;
    expect(echo.description).toContain("Echoes the text of each message back.");
    expect(echo.description).toContain("- Echo: Replies with the text it was sent.");
    expect(echo.inputSchema).toMatchObject({
      type: "object",
      required: ["message"],
      properties: { message: { type: "string" }, contextId: { type: "string" }, taskId: { type: "string" } },
    });
    expect(echo.execution).toEqual({ taskSupport: "optional" });
    expect(tools.find((t) => t.name === "stepper")!.description).toContain("A test agent that waits for its test");
  });

  test("the server declares tools with listChanged and tasks", () => {
    expect(peer.client.getServerCapabilities()).toMatchObject({
      tools: { listChanged: true },
      tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } },
    });
  });
});

describe("tools/call", () => {
  test("echo: the answer as text, the router's ids in structuredContent", async () => {
    const result = (await peer.client.callTool({ name: "echo", arguments: { message: "hi there" } })) as CallToolResult;
    expect(texts(result)).toEqual(["hi there"]);
    expect(result.isError).toBeUndefined();
    expect(result.structuredContent).toMatchObject({ state: "completed", taskId: expect.any(String), contextId: expect.any(String) });
  });

  test("eliza answers; contextId continues the conversation", async () => {
    const first = (await peer.client.callTool({ name: "eliza", arguments: { message: "hello" } })) as CallToolResult;
    expect(texts(first)[0]!.length).toBeGreaterThan(0);
    const contextId = (first.structuredContent as { contextId: string }).contextId;
    const second = (await peer.client.callTool({ name: "eliza", arguments: { message: "how are you?", contextId } })) as CallToolResult;
    expect(second.structuredContent).toMatchObject({ contextId, state: "completed" });
  });

  test("a hub agent: its status lines as progress notifications, increasing, then the answer", async () => {
    rig.stepped.reset();
    const progress: Array<{ progress: number; message?: string }> = [];
    const call = peer.client.callTool({ name: "stepper", arguments: { message: "world" } }, undefined, { onprogress: (p) => void progress.push(p) });
    await rig.stepped.reached("status-1");
    rig.stepped.release("step-1");
    await rig.stepped.reached("status-2");
    rig.stepped.release("step-2");
    const result = (await call) as CallToolResult;
    expect(texts(result)).toEqual(["Hello world!"]);
    expect(progress.map((p) => p.message)).toEqual(["Looking things up", "Writing the answer"]);
    expect(progress[1]!.progress).toBeGreaterThan(progress[0]!.progress);
  });

  test("artifacts after the answer: data as JSON text, files as resource links", async () => {
    const result = (await peer.client.callTool({ name: "artist", arguments: { message: "chart please" } })) as CallToolResult;
    expect(result.content).toEqual([
      { type: "text", text: "Here is your chart." },
      { type: "text", text: JSON.stringify({ bars: [1, 2], title: "sales" }) },
      { type: "resource_link", uri: "https://example.com/report.pdf", name: "report.pdf", mimeType: "application/pdf" },
    ]);
  });

  test("a failed turn is a result with isError and the agent's message", async () => {
    rig.stepped.reset();
    const result = (await peer.client.callTool({ name: "stepper", arguments: { message: "fail" } })) as CallToolResult;
    expect(result.isError).toBe(true);
    expect(texts(result)[0]).toContain("the tool broke");
    expect(result.structuredContent).toMatchObject({ state: "failed" });
  });

  test("bad calls are protocol errors naming what is wrong", async () => {
    await expect(peer.client.callTool({ name: "nobody", arguments: { message: "x" } })).rejects.toThrow(/Unknown tool: nobody/);
    await expect(peer.client.callTool({ name: "echo", arguments: {} })).rejects.toThrow(/arguments\.message/);
    await expect(peer.client.callTool({ name: "echo", arguments: { message: "x", taskId: "no-such-task" } })).rejects.toThrow(/Task not found: no-such-task/);
  });
});

describe("earlier protocol revisions", () => {
  /** POSTs one JSON-RPC message to /mcp; the JSON-RPC messages of the answer (SSE or JSON). */
  async function post(message: object, headers: Record<string, string> = {}) {
    const res = await fetch(`${rig.router.url}/mcp`, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers },
      body: JSON.stringify(message),
    });
    const text = await res.text();
    const messages = res.headers.get("content-type")?.includes("text/event-stream")
      ? text
          .split("\n")
          .filter((l) => l.startsWith("data: ") && l.length > 6)
          .map((l) => JSON.parse(l.slice(6)))
      : text
        ? [JSON.parse(text)]
        : [];
    return { res, messages, ids: text.split("\n").filter((l) => l.startsWith("id: ")) };
  }

  test.each(["2025-06-18", "2025-03-26"])("%s: negotiated as asked; a call answers without a priming event", async (version) => {
    const init = await post({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: version, capabilities: {}, clientInfo: { name: "old", version: "1" } },
    });
    expect(init.messages[0].result.protocolVersion).toBe(version);
    const headers = { "mcp-session-id": init.res.headers.get("mcp-session-id")!, "mcp-protocol-version": version };
    expect((await post({ jsonrpc: "2.0", method: "notifications/initialized" }, headers)).res.status).toBe(202);
    const call = await post({ jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "echo", arguments: { message: "old times" } } }, headers);
    expect(call.messages).toEqual([{ jsonrpc: "2.0", id: 2, result: expect.objectContaining({ content: [{ type: "text", text: "old times" }] }) }]);
    // The result still carries its log-derived id (resumable), and nothing precedes it.
    expect(call.ids).toHaveLength(1);
    expect(call.ids[0]).toMatch(/^id: c1\./);
  });
});
