import { afterAll, beforeAll, describe, expect, test } from "@jest/globals";
import type { RunningRouter } from "../../router/index.js";
import { openStream, rpc, type Json } from "../helpers/rpc.js";
import { testRouter } from "../helpers/router.js";
import { startTckAgent, type TckAgent } from "./tck-agent.js";

/** The TCK's scenario agent behind the router plays the scenarios the TCK's feature files describe. */

let agent: TckAgent;
let router: RunningRouter;
const V1 = { "A2A-Version": "1.0" };

beforeAll(async () => {
  agent = await startTckAgent();
  router = await testRouter({ config: { agents: [{ id: "tck", url: agent.url }] } });
});

afterAll(async () => {
  await router.close();
  await agent.stop();
});

const send = (messageId: string, extra: Json = {}) =>
  rpc(router.url, "SendMessage", { message: { messageId, role: "ROLE_USER", parts: [{ text: "go" }], ...extra } }, { path: "/agents/tck", headers: V1 });

describe("scenarios through the router", () => {
  test("tck-complete-task completes with 'Hello from TCK'; the artifact scenarios add their artifact", async () => {
    const done = (await send("tck-complete-task-1")).result.task;
    expect(done.status.state).toBe("TASK_STATE_COMPLETED");
    expect(done.status.message.parts).toEqual([{ text: "Hello from TCK" }]);
    const text = (await send("tck-artifact-text-1")).result.task;
    expect(text.artifacts[0].parts).toEqual([{ text: "Generated text content" }]);
    const data = (await send("tck-artifact-data-1")).result.task;
    expect(data.artifacts[0].parts).toEqual([{ data: { key: "value", count: 42 } }]);
    const url = (await send("tck-artifact-file-url-1")).result.task;
    expect(url.artifacts[0].parts[0]).toMatchObject({ url: "https://example.com/output.txt", filename: "output.txt", mediaType: "text/plain" });
  });

  test("tck-input-required waits for input; a follow-up on the task goes on", async () => {
    const waiting = (await send("tck-input-required-1")).result.task;
    expect(waiting.status.state).toBe("TASK_STATE_INPUT_REQUIRED");
    const follow = (await send("tck-complete-task-2", { taskId: waiting.id })).result.task;
    expect(follow).toMatchObject({ id: waiting.id, status: { state: "TASK_STATE_COMPLETED" } });
  });

  test("tck-stream-artifact-chunked streams working, two chunks of one artifact, completed", async () => {
    const s = await openStream(
      router.url,
      "SendStreamingMessage",
      { message: { messageId: "tck-stream-artifact-chunked-1", role: "ROLE_USER", parts: [{ text: "go" }] } },
      { path: "/agents/tck", headers: V1 },
    );
    const results = (await s.all()).map((e) => e.data.result);
    expect(results[0].task).toBeDefined();
    const chunks = results.filter((r) => r.artifactUpdate).map((r) => r.artifactUpdate);
    expect(chunks.map((c) => c.artifact.parts[0].text).join("")).toBe("chunk-1 chunk-2");
    expect(chunks.at(-1).lastChunk).toBe(true);
    expect(results.at(-1).statusUpdate.status.state).toBe("TASK_STATE_COMPLETED");
  });

  test("tck-message-response: SendMessage answers with the agent's Message (DM-MSG-001), over JSON-RPC and REST", async () => {
    const rpcAnswer = (await send("tck-message-response-1")).result;
    expect(rpcAnswer).toEqual({
      message: { messageId: expect.any(String), role: "ROLE_AGENT", parts: [{ text: "Direct message response" }], contextId: expect.any(String) },
    });
    const res = await fetch(`${router.url}/agents/tck/rest/message:send`, {
      method: "POST",
      headers: { "content-type": "application/json", ...V1 },
      body: JSON.stringify({ message: { messageId: "tck-message-response-2", role: "ROLE_USER", parts: [{ text: "go" }] } }),
    });
    expect(res.status).toBe(200);
    expect(((await res.json()) as Json).message.parts).toEqual([{ text: "Direct message response" }]);
  });

  test("a message id without the tck- prefix (the v0.3 line's) is answered and left waiting for input", async () => {
    const r = await rpc(
      router.url,
      "message/send",
      { message: { kind: "message", messageId: "test-1", role: "user", parts: [{ kind: "text", text: "hi" }] } },
      { path: "/agents/tck" },
    );
    expect(r.result.status.state).toBe("input-required");
    expect(r.result.status.message.parts[0].text).toContain("You said: 'hi'");
  });
});
