/**
 * CONTRACT 16 and 14: an agent that asks back. A host that declared elicitation is asked with a form and its
 * answer continues the same task in the same call; any other host gets the question with state
 * input-required, and a later call with the taskId continues. Cancelling the request cancels the task.
 */
import { afterAll, beforeAll, describe, expect, test } from "@jest/globals";
import type { CallToolResult, ElicitRequest } from "@modelcontextprotocol/sdk/types.js";
import { startChatRig, type ChatRig } from "../chat/helpers.js";
import { until } from "../helpers/until.js";
import { connectMcp, TestNetwork, texts, type McpPeer } from "./helpers.js";

let rig: ChatRig;
const ASK = "book a flight to Paris tomorrow";

/** Tomorrow's UTC date, as the local model reads "tomorrow". */
function tomorrow(): string {
  const now = new Date();
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1)).toISOString().slice(0, 10);
}

beforeAll(async () => {
  rig = await startChatRig();
});

afterAll(async () => {
  await rig.close();
});

describe("a host with elicitation", () => {
  let peer: McpPeer;
  const asked: ElicitRequest["params"][] = [];

  beforeAll(async () => {
    peer = await connectMcp(rig.router.url, {
      elicit: (req) => {
        asked.push(req.params);
        return { action: "accept", content: { origin: "London" } };
      },
    });
  });
  afterAll(() => peer.close());

  test("Eliza's flight booking asks for the origin with a form; the answer books it in the same call", async () => {
    const result = (await peer.client.callTool({ name: "eliza", arguments: { message: ASK } })) as CallToolResult;
    expect(asked).toHaveLength(1);
    expect(asked[0]).toMatchObject({ mode: "form", requestedSchema: { type: "object", properties: { origin: { type: "string" } }, required: ["origin"] } });
    expect(asked[0]!.message).toContain("departure city");
    expect(result.structuredContent).toMatchObject({ state: "completed" });
    expect(texts(result)[0]).toContain(`Booked 1 seat from London to Paris on ${tomorrow()}`);
    // One task, two turns.
    const { taskId } = result.structuredContent as { taskId: string };
    const task = (await rig.router.engine.getTask(taskId))!;
    expect(task.history.map((m) => m.role)).toEqual(["user", "agent", "user", "agent"]);
  });
});

describe("a host without elicitation", () => {
  let peer: McpPeer;

  beforeAll(async () => {
    peer = await connectMcp(rig.router.url);
  });
  afterAll(() => peer.close());

  test("the question is the result (input-required); a call with its taskId books it", async () => {
    const asked = (await peer.client.callTool({ name: "eliza", arguments: { message: ASK } })) as CallToolResult;
    expect(asked.structuredContent).toMatchObject({ state: "input-required" });
    expect(asked.isError).toBeUndefined();
    expect(texts(asked)[0]).toContain("departure city");
    const { taskId, contextId } = asked.structuredContent as { taskId: string; contextId: string };
    const booked = (await peer.client.callTool({ name: "eliza", arguments: { message: "from London", taskId } })) as CallToolResult;
    expect(booked.structuredContent).toEqual({ taskId, contextId, state: "completed" });
    expect(texts(booked)[0]).toContain("Booked 1 seat from London to Paris");
  });

  test("the contextId of a task waiting for input continues it too", async () => {
    const asked = (await peer.client.callTool({ name: "eliza", arguments: { message: ASK } })) as CallToolResult;
    const { taskId, contextId } = asked.structuredContent as { taskId: string; contextId: string };
    const booked = (await peer.client.callTool({ name: "eliza", arguments: { message: "from Rome", contextId } })) as CallToolResult;
    expect(booked.structuredContent).toEqual({ taskId, contextId, state: "completed" });
    expect(texts(booked)[0]).toContain("from Rome to Paris");
  });

  test("a taskId of another agent's task is refused, naming the field", async () => {
    const echoed = (await peer.client.callTool({ name: "echo", arguments: { message: "x" } })) as CallToolResult;
    const { taskId } = echoed.structuredContent as { taskId: string };
    await expect(peer.client.callTool({ name: "eliza", arguments: { message: "y", taskId } })).rejects.toThrow(/another agent/);
  });
});

describe("cancel", () => {
  test("notifications/cancelled (the client aborting its request) cancels the task", async () => {
    const net = new TestNetwork();
    const peer = await connectMcp(rig.router.url, {
      fetch: net.fetch,
      reconnect: { initialReconnectionDelay: 10, maxReconnectionDelay: 50, reconnectionDelayGrowFactor: 1, maxRetries: 5 },
    });
    try {
      rig.stepped.reset();
      const aborter = new AbortController();
      const call = peer.client.callTool({ name: "stepper", arguments: { message: "hang" } }, undefined, { signal: aborter.signal });
      await rig.stepped.reached("hanging");
      const before = rig.stepped.canceled;
      aborter.abort("the user pressed stop");
      await expect(call).rejects.toThrow();
      await until(() => rig.stepped.canceled === before + 1);
      const [task] = await rig.router.engine.listTasks({ agentId: "stepper", limit: 1 });
      expect(task).toMatchObject({ agentId: "stepper", status: { state: "canceled" } });
      // The call's stream is closed (it holds no connection); the client's resumption of it is told it is over.
      await until(() => net.resumes.length === 1);
    } finally {
      await peer.close();
    }
  });
});
