/**
 * CONTRACT 14 with an upstream agent built from @a2a-js/sdk's server that asks back: its input-required
 * passes through, the continuation (a v1.0 client's taskId, or the context alone) reaches it on its own task
 * id, a client only ever sees the router's ids, and a cancel while it waits reaches it on its own id too.
 */
import { afterAll, beforeAll, describe, expect, test } from "@jest/globals";
import { TaskState, type Task } from "@a2a-js/sdk";
import { ClientFactory, type Client } from "@a2a-js/sdk/client";
import type { RunningRouter } from "../../router/index.js";
import { testRouter } from "../helpers/router.js";
import { until } from "../helpers/until.js";
import { sdkMessage, sdkText } from "../interop/helpers.js";
import { SdkAgent } from "../interop/sdk-agent.js";

let streaming: SdkAgent;
let plain: SdkAgent;
let router: RunningRouter;

beforeAll(async () => {
  // ownContext: the agent keeps its own contexts too, so neither of its ids is the router's.
  streaming = await new SdkAgent({ streaming: true, ownContext: true }).start();
  plain = await new SdkAgent({ streaming: false, ownContext: true }).start();
  router = await testRouter({
    eliza: false,
    config: {
      agents: [
        { id: "up-stream", url: streaming.url },
        { id: "up-plain", url: plain.url },
      ],
    },
  });
});

afterAll(async () => {
  await router.close();
  await Promise.all([streaming.stop(), plain.stop()]);
});

const send = (words: string, extra: Parameters<typeof sdkMessage>[1] = {}) => ({
  tenant: "",
  message: sdkMessage(words, extra),
  configuration: undefined,
  metadata: undefined,
});

function client(agent: string): Promise<Client> {
  return new ClientFactory().createFromUrl(`${router.url}/agents/${agent}/`);
}

const agents: Array<[string, () => SdkAgent]> = [
  ["a streaming agent", () => streaming],
  ["a non-streaming agent", () => plain],
];

describe.each(agents)("%s that asks back", (label, upstream) => {
  const id = label.includes("non") ? "up-plain" : "up-stream";

  test("input-required passes through; the taskId continuation reaches the agent's own task; the client sees only the router's ids", async () => {
    const agent = upstream();
    const c = await client(id);
    const asked = (await c.sendMessage(send("ask"))) as Task;
    expect(asked.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    expect(sdkText(asked.status?.message?.parts)).toBe("which one?");
    const own = agent.tasks.at(-1)!;
    expect(own.taskId).not.toBe(asked.id);

    const done = (await c.sendMessage(send("the red one", { taskId: asked.id }))) as Task;
    expect(done.id).toBe(asked.id);
    expect(done.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(sdkText(done.status?.message?.parts)).toBe("you said: the red one");
    const continued = agent.calls.at(-1)!;
    expect(continued.params.message.taskId).toBe(own.taskId);
    // The agent went on with its own task, in its own context.
    expect(agent.tasks.at(-1)).toEqual(own);
    const got = await c.getTask({ tenant: "", id: asked.id, historyLength: 10 });
    for (const seen of [asked, done, got]) {
      expect(JSON.stringify(seen)).not.toContain(own.taskId);
      expect(JSON.stringify(seen)).not.toContain(own.contextId);
    }
    expect(got.history.map((m) => sdkText(m.parts))).toEqual(["ask", "which one?", "the red one", "you said: the red one"]);
  });

  test("the context alone continues the task waiting there, on the agent's own task id", async () => {
    const agent = upstream();
    const c = await client(id);
    const asked = (await c.sendMessage(send("ask"))) as Task;
    const own = agent.tasks.at(-1)!;
    const done = (await c.sendMessage(send("blue", { contextId: asked.contextId }))) as Task;
    expect(done.id).toBe(asked.id);
    expect(sdkText(done.status?.message?.parts)).toBe("you said: blue");
    expect(agent.calls.at(-1)!.params.message.taskId).toBe(own.taskId);
  });

  test("a cancel while the task waits for input reaches the agent on its own task id", async () => {
    const agent = upstream();
    const c = await client(id);
    const asked = (await c.sendMessage(send("ask"))) as Task;
    const own = agent.tasks.at(-1)!;
    const canceled = await c.cancelTask({ tenant: "", id: asked.id, metadata: undefined });
    expect(canceled.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
    await until(() => agent.canceled.includes(own.taskId));
    const direct = await new ClientFactory().createFromUrl(agent.url);
    const upstreamTask = await direct.getTask({ tenant: "", id: own.taskId, historyLength: undefined });
    expect(upstreamTask.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
  });
});
