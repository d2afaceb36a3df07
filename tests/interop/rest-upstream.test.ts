import { afterAll, beforeAll, describe, expect, test } from "@jest/globals";
import type { RunningRouter } from "../../router/index.js";
import { getJson, openStream, rpc, type Json, type SseStream } from "../helpers/rpc.js";
import { testRouter } from "../helpers/router.js";
import { CLIENTS, expectRouterIdsOnly, type DialectClient } from "./clients.js";
import { until } from "./helpers.js";
import { SdkAgent } from "./sdk-agent.js";

/**
 * CONTRACT 13: an upstream agent whose card offers only the v1.0 HTTP+JSON (REST) binding is reachable.
 * The agents are built only from @a2a-js/sdk's server pieces served with its `restHandler`, their cards
 * listing one `HTTP+JSON` interface; they keep their own task and context ids. v0.1, v0.3 and v1.0
 * clients of the router send, stream, cancel and continue tasks on them, and see the router's ids and
 * text kinds only, exactly as behind a v1.0 JSON-RPC agent.
 */

let streaming: SdkAgent;
let plain: SdkAgent;
let router: RunningRouter;

beforeAll(async () => {
  streaming = await new SdkAgent({ streaming: true, binding: "HTTP+JSON", ownContext: true }).start();
  plain = await new SdkAgent({ streaming: false, binding: "HTTP+JSON", ownContext: true }).start();
  router = await testRouter({
    config: {
      agents: [
        { id: "rest", url: streaming.url },
        { id: "rest-plain", url: plain.url },
        // The same agent, its binding forced by config rather than read from the card.
        { id: "rest-forced", url: `${streaming.url}/a2a/rest`, protocol: "1.0+rest" },
      ],
    },
  });
});

afterAll(async () => {
  await router.close();
  await Promise.all([streaming.stop(), plain.stop()]);
});

const path = (agent: string) => ({ path: `/agents/${agent}` });

/** The text of a result's status message (a Task, a v0.1 status event, a v1.0 `{task}`/`{statusUpdate}`). */
function statusText(result: Json): string {
  const status = (result.task ?? result.statusUpdate ?? result).status;
  return (status?.message?.parts ?? []).map((p: Json) => p.text ?? "").join("");
}

/** The text of every artifact a result or event carries, in order. */
function artifactText(result: Json): string {
  const artifacts: Json[] = result.artifactUpdate
    ? [result.artifactUpdate.artifact]
    : result.artifact
      ? [result.artifact]
      : ((result.task ?? result).artifacts ?? []);
  return artifacts
    .flatMap((a) => a.parts ?? [])
    .map((p: Json) => p.text ?? "")
    .join("");
}

/** Reads events until the agent's `working` status arrives: by then the router knows the agent's task id. */
async function untilWorking(s: SseStream, client: DialectClient): Promise<Json[]> {
  const seen: Json[] = [];
  for (let e = await s.next(); e; e = await s.next()) {
    seen.push(e.data.result);
    if (client.stateOf(e.data.result) === "working" && statusText(e.data.result) !== "") return seen;
  }
  throw new Error("the stream ended before the agent was working");
}

const lastCall = (agent: SdkAgent, method: string) => agent.calls.filter((c) => c.method === method).at(-1)!;

describe("discovery", () => {
  test("a card offering only HTTP+JSON: the agent is online, its skills read from the card", async () => {
    const { agents } = await getJson(`${router.url}/agents`);
    for (const id of ["rest", "rest-plain", "rest-forced"]) {
      expect(agents.find((a: Json) => a.id === id)).toMatchObject({ transport: "http", online: true, name: "SDK shouter" });
    }
  });

  test("turns go to the REST paths with A2A-Version 1.0 and application/a2a+json, no JSON-RPC envelope", async () => {
    const sent = await rpc(router.url, "SendMessage", CLIENTS["v1.0"].params("hi"), { ...path("rest-plain"), headers: CLIENTS["v1.0"].headers });
    expect(sent.error).toBeUndefined();
    const call = lastCall(plain, "SendMessage");
    expect(call).toMatchObject({ version: "1.0", contentType: "application/a2a+json" });
    expect(call.params.jsonrpc).toBeUndefined();
    expect(call.params.message).toMatchObject({ role: "ROLE_USER", parts: [{ text: "hi" }] });
  });

  test("config protocol 1.0+rest speaks REST at the configured interface URL", async () => {
    const before = streaming.calls.length;
    const sent = await rpc(router.url, "tasks/send", CLIENTS["v0.1"].params("forced"), path("rest-forced"));
    expect(sent.result.status.state).toBe("completed");
    expect(streaming.calls.slice(before).map((c) => c.method)).toEqual(["SendStreamingMessage"]);
  });
});

describe.each(["v0.1", "v0.3", "v1.0"] as const)("a %s client", (dialect) => {
  const client = CLIENTS[dialect];
  const call = (agent: string, method: string, params: unknown) => rpc(router.url, method, params, { ...path(agent), headers: client.headers });

  test("send (blocking) to a non-streaming REST agent: its answer and artifacts, the router's ids only", async () => {
    const before = plain.tasks.length;
    const sent = await call("rest-plain", client.send, client.params("hello"));
    expect(sent.error).toBeUndefined();
    expect(client.stateOf(sent.result)).toBe("completed");
    expect(statusText(sent.result)).toBe("done");
    expect(artifactText(sent.result)).toBe("HELLO");
    expect(lastCall(plain, "SendMessage").params.message.parts).toEqual([{ text: "hello" }]);
    const got = await call("rest-plain", client.get, { id: client.taskIdOf(sent.result) });
    expect(client.stateOf(got.result)).toBe("completed");
    expectRouterIdsOnly(plain, before, [sent, got]);
  });

  test("stream from a streaming REST agent: progress, artifacts, the final snapshot; the router's ids only", async () => {
    const before = streaming.tasks.length;
    const s = await openStream(router.url, client.stream, client.params("hello"), { ...path("rest"), headers: client.headers });
    const results = (await s.all()).map((e) => e.data.result as Json);
    expect(client.stateOf(results.at(-1)!)).toBe("completed");
    const statuses = results.map((r) => r.statusUpdate ?? r).filter((r) => r.status?.message !== undefined);
    expect(statuses.map((r) => [statusText(r), r.metadata?.textKind])).toEqual([
      ["working on: hello", "progress"],
      ["done", "snapshot"],
    ]);
    expect(results.map(artifactText).join("")).toBe("HELLO");
    expect(lastCall(streaming, "SendStreamingMessage").version).toBe("1.0");
    expectRouterIdsOnly(streaming, before, results);
  });

  test("cancel of a running upstream task reaches the agent on its own task id", async () => {
    const cancels = streaming.calls.filter((c) => c.method === "CancelTask").length;
    const s = await openStream(router.url, client.stream, client.params("hang"), { ...path("rest"), headers: client.headers });
    const opening = await untilWorking(s, client);
    const taskId = client.taskIdOf(opening[0]!);
    const theirs = streaming.tasks.at(-1)!.taskId;

    const canceled = await call("rest", client.cancel, { id: taskId });
    expect(client.stateOf(canceled.result)).toBe("canceled");
    const rest = (await s.all()).map((e) => e.data.result as Json);
    expect(client.stateOf(rest.at(-1)!)).toBe("canceled");

    await until(() => streaming.calls.filter((c) => c.method === "CancelTask").length > cancels, "the agent's CancelTask");
    expect(lastCall(streaming, "CancelTask").params.id).toBe(theirs);
    await until(() => streaming.canceled.includes(theirs), "the agent's executor to cancel");
    expect(JSON.stringify([opening, canceled, rest])).not.toContain(theirs);
  });

  test("a follow-up turn on an input-required task names the agent's task and completes", async () => {
    const before = streaming.tasks.length;
    const first = await call("rest", client.send, client.params("ask"));
    expect(client.stateOf(first.result)).toBe("input-required");
    expect(statusText(first.result)).toBe("which one?");
    const taskId = client.taskIdOf(first.result);
    const theirs = streaming.tasks.at(-1)!.taskId;

    const s = await openStream(router.url, client.stream, client.params("the red one", taskId), { ...path("rest"), headers: client.headers });
    const results = (await s.all()).map((e) => e.data.result as Json);
    const last = results.at(-1)!;
    expect(client.stateOf(last)).toBe("completed");
    expect(statusText(last)).toBe("you said: the red one");
    expect(results.every((r) => client.taskIdOf(r) === taskId)).toBe(true);
    expect(lastCall(streaming, "SendStreamingMessage").params.message.taskId).toBe(theirs);
    expectRouterIdsOnly(streaming, before, [first, results]);
  });

  test("an upstream HTTP error (google.rpc.Status) fails the task with its status and message, briefly", async () => {
    const first = await call("rest-plain", client.send, client.params("ask"));
    const taskId = client.taskIdOf(first.result);
    const theirs = plain.tasks.at(-1)!.taskId;
    plain.forget(); // as after a restart: the agent answers the follow-up 404 TASK_NOT_FOUND

    const second = await call("rest-plain", client.send, client.params("the red one", taskId));
    expect(second.error).toBeUndefined();
    expect(client.stateOf(second.result)).toBe("failed");
    const text = statusText(second.result);
    // The agent's message quotes its own task id; the client reads the router's.
    expect(text).toBe(`Upstream agent rest-plain answered HTTP 404 Not Found: Task not found: ${taskId}`);
    expect(JSON.stringify(second)).not.toContain(theirs);
  });
});
