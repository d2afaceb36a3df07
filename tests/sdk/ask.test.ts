import { afterAll, afterEach, beforeAll, describe, expect, test } from "@jest/globals";
import { randomUUID } from "node:crypto";
import { TaskState, type Task } from "@a2a-js/sdk";
import { ClientFactory, type Client } from "@a2a-js/sdk/client";
import { connectAgent, type Agent, type Message } from "../../agents/sdk/index.js";
import { startRouter, type RunningRouter } from "../../router/index.js";
import { openStream, rpc as rawRpc } from "../helpers/rpc.js";
import { RawAgent } from "../helpers/ws-agent.js";
import { sdkMessage, sdkText } from "../interop/helpers.js";
import { deferred, memoryLogger, rpc, sendParams, stream, text } from "./helpers.js";

/**
 * CONTRACT 14, the SDK's `ctx.ask` over the real hub: the turn ends input-required with the question, a
 * client's next message for the task (here a v1.0 client continuing by taskId) resolves the ask, and the same
 * handler finishes the task. Also the continuation's `task.execute` as a raw agent sees it.
 */

let router: RunningRouter;
let hubUrl: string;
const agents: Agent[] = [];
const raws: RawAgent[] = [];

function agent(name: string, concurrency = 8): Agent {
  const a = connectAgent({ url: hubUrl, name, logger: memoryLogger(), concurrency });
  agents.push(a);
  return a;
}

function textOf(message: Message): string {
  return message.parts.map((p) => ("text" in p ? p.text : "")).join("");
}

function v1Client(name: string): Promise<Client> {
  return new ClientFactory().createFromUrl(`${router.url}/agents/${name}/`);
}

const send = (words: string, extra: Parameters<typeof sdkMessage>[1] = {}) => ({
  tenant: "",
  message: sdkMessage(words, extra),
  configuration: undefined,
  metadata: undefined,
});

beforeAll(async () => {
  router = await startRouter({ port: 0, store: "memory" });
  hubUrl = `${router.url.replace(/^http/, "ws")}/hub`;
});

afterEach(async () => {
  await Promise.all(agents.splice(0).map((a) => a.close()));
  await Promise.all(raws.splice(0).map((r) => r.close()));
});

afterAll(async () => {
  await router.close();
});

describe("ctx.ask", () => {
  test("asks, a v1.0 client's taskId continuation answers, and the same handler call finishes the task", async () => {
    const calls: string[] = [];
    const a = agent("booker").skill({ name: "book", description: "books a flight" }, async (message, ctx) => {
      calls.push(ctx.taskId);
      const answer = await ctx.ask(`Where do you fly to ${message} from?`);
      expect(ctx.message).toBe(answer);
      return `Booked ${message} from ${textOf(answer)}.`;
    });
    await a.ready;
    const client = await v1Client("booker");
    const asked = (await client.sendMessage(send("Paris"))) as Task;
    expect(asked.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    expect(sdkText(asked.status?.message?.parts)).toBe("Where do you fly to Paris from?");

    const done = (await client.sendMessage(send("London", { taskId: asked.id }))) as Task;
    expect(done.id).toBe(asked.id);
    expect(done.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(sdkText(done.status?.message?.parts)).toBe("Booked Paris from London.");
    expect(calls).toEqual([asked.id]);
    const got = await client.getTask({ tenant: "", id: asked.id, historyLength: 10 });
    expect(got.history.map((m) => sdkText(m.parts))).toEqual(["Paris", "Where do you fly to Paris from?", "London", "Booked Paris from London."]);
  });

  test("a resubscribe opened on the first turn goes on through the question and the continuation to the end", async () => {
    const a = agent("streamer").skill({ name: "book", description: "streams around a question" }, async function* (message, ctx) {
      yield `Looking at flights to ${message}. `;
      const answer = await ctx.ask("From where?");
      yield "Booked ";
      yield `from ${textOf(answer)}.`;
    });
    await a.ready;
    const params = sendParams("streamer", "Oslo");
    const first = await stream(router.url, "tasks/sendSubscribe", params);
    expect(first.at(-1)!.result).toMatchObject({ final: true, status: { state: "input-required" } });
    expect(text(first.at(-1)!)).toBe("From where?");

    const resumed = await openStream(router.url, "tasks/resubscribe", { id: params.id }, { headers: { "last-event-id": String(first[0]!.seq) } });
    const client = await v1Client("streamer");
    const done = (await client.sendMessage(send("Bergen", { taskId: params.id }))) as Task;
    // Only the continuation's chunks are its answer: the first turn's ended with the question.
    expect(sdkText(done.status?.message?.parts)).toBe("Booked from Bergen.");
    const events = await resumed.all();
    const seqs = events.filter((e) => e.id !== undefined).map((e) => Number(e.id));
    expect(seqs).toEqual(seqs.map((_, i) => first[0]!.seq! + 1 + i));
    const states = events.map((e) => e.data.result.status?.state).filter((s) => s !== undefined);
    expect(states).toContain("input-required");
    expect(events.at(-1)!.data.result).toMatchObject({ final: true, status: { state: "completed" } });
  });

  test("a task waiting in ctx.ask holds no slot; a cancel rejects the ask, sends nothing more, and ends the task canceled", async () => {
    const rejected = deferred<string>();
    const a = agent("solo", 1).skill({ name: "book", description: "asks, or answers at once" }, async (message, ctx) => {
      if (message !== "ask") return `quick ${message}`;
      try {
        await ctx.ask("Which day?");
      } catch (err) {
        rejected.resolve((err as Error).message);
        throw err;
      }
      return "never sent";
    });
    await a.ready;
    const waiting = await rpc(router.url, "tasks/send", sendParams("solo", "ask"));
    expect(waiting.status.state).toBe("input-required");
    // concurrency 1, and the one task holding it waits for its client: another task still runs.
    const other = await rpc(router.url, "tasks/send", sendParams("solo", "one"));
    expect(other.status).toMatchObject({ state: "completed", message: { parts: [{ text: "quick one" }] } });

    const canceled = await rpc(router.url, "tasks/cancel", { id: waiting.id });
    expect(canceled.status.state).toBe("canceled");
    expect(await rejected.promise).toBe("task canceled by the router");
    const got = await rpc(router.url, "tasks/get", { id: waiting.id, historyLength: 10 });
    expect(got.status.state).toBe("canceled");
    expect(JSON.stringify(got)).not.toContain("never sent");
    const after = await rpc(router.url, "tasks/send", sendParams("solo", "two"));
    expect(after.status.state).toBe("completed");
  });

  test("a question must be a non-empty string: the task fails saying so", async () => {
    const a = agent("mute").skill({ name: "ask", description: "asks nothing" }, async (_message, ctx) => {
      await ctx.ask("");
      return "unreachable";
    });
    await a.ready;
    const task = await rpc(router.url, "tasks/send", sendParams("mute", "hi"));
    expect(task.status).toMatchObject({ state: "failed", message: { parts: [{ text: "ctx.ask needs the question as a non-empty string" }] } });
  });
});

describe("the continuation on the hub's wire", () => {
  test.each([1, 2] as const)(
    "protocol %i: task.execute with the task's own id and metadata.continuation true; the agent's answer ends the task",
    async (protocol) => {
      const name = `raw-asker-${protocol}`;
      const raw = new RawAgent(router.url);
      raws.push(raw);
      await raw.register(name, { protocol });
      const firstExecute = raw.nextTask();
      const id = randomUUID();
      const asking = rawRpc(router.url, "tasks/send", {
        id,
        message: { role: "user", parts: [{ type: "text", text: "book" }] },
        metadata: { agent: name, continuation: true },
      });
      const first = await firstExecute;
      expect(first.params.id).toBe(id);
      // A client's own `continuation` never reaches the agent: the router says when a turn continues a task.
      expect(first.params.metadata.continuation).toBeUndefined();
      raw.notify("task.complete", {
        task_id: id,
        status: { state: "input-required", message: { role: "agent", parts: [{ type: "text", text: "Where from?" }] } },
        final: true,
      });
      expect((await asking).result.status.state).toBe("input-required");

      const secondExecute = raw.nextTask();
      const client = await v1Client(name);
      const answering = client.sendMessage(send("London", { taskId: id }));
      const second = await secondExecute;
      expect(second.params).toMatchObject({ id, metadata: { continuation: true } });
      if (protocol === 2) {
        expect(second.params).toMatchObject({ contextId: first.params.contextId, message: { role: "ROLE_USER", taskId: id, parts: [{ text: "London" }] } });
      } else {
        expect(second.params).toMatchObject({ sessionId: first.params.sessionId, message: { role: "user", parts: [{ type: "text", text: "London" }] } });
      }
      raw.notify("task.complete", {
        task_id: id,
        status: { state: "completed", message: { role: "agent", parts: [{ type: "text", text: "Booked." }] } },
        final: true,
      });
      const done = (await answering) as Task;
      expect(done.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
      expect(sdkText(done.status?.message?.parts)).toBe("Booked.");
    },
  );

  test("a cancel of a task waiting for input reaches the agent as task.cancel", async () => {
    const raw = new RawAgent(router.url);
    raws.push(raw);
    await raw.register("raw-cancel");
    const execute = raw.nextTask();
    const id = randomUUID();
    const asking = rawRpc(router.url, "tasks/send", {
      id,
      message: { role: "user", parts: [{ type: "text", text: "book" }] },
      metadata: { agent: "raw-cancel" },
    });
    await execute;
    raw.notify("task.complete", {
      task_id: id,
      status: { state: "input-required", message: { role: "agent", parts: [{ type: "text", text: "When?" }] } },
      final: true,
    });
    expect((await asking).result.status.state).toBe("input-required");
    const told = raw.nextFrame((f) => f.method === "task.cancel");
    expect((await rawRpc(router.url, "tasks/cancel", { id })).result.status.state).toBe("canceled");
    expect((await told).params).toEqual({ task_id: id });
  });
});
