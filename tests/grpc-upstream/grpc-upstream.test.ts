import { afterAll, beforeAll, describe, expect, test } from "@jest/globals";
import { TaskState, type StreamResponse, type Task } from "@a2a-js/sdk";
import { type Client, ClientFactory, ClientFactoryOptions, RestTransportFactory } from "@a2a-js/sdk/client";
import type { RunningRouter } from "../../router/index.js";
import { getJson, openStream, rpc, type Json, type SseStream } from "../helpers/rpc.js";
import { testRouter } from "../helpers/router.js";
import { CLIENTS, expectRouterIdsOnly, type DialectClient } from "../interop/clients.js";
import { collect, sdkMessage, sdkText, until } from "../interop/helpers.js";
import { SdkAgent } from "../interop/sdk-agent.js";

/**
 * CONTRACT 17: an upstream agent whose card offers only A2A v1.0's gRPC binding (or whose config says
 * `protocol: "1.0+grpc"`) is reachable. The agents are @a2a-js/sdk's own gRPC server (`grpcService`) over its
 * request handler, their cards (served over HTTP) listing one `GRPC` interface; they keep their own task and
 * context ids. v0.1, v0.3 and v1.0 JSON-RPC clients and @a2a-js/sdk's REST client of the router send,
 * stream, get, cancel and continue tasks on them and see the router's ids only, exactly as behind a
 * JSON-RPC agent.
 */

let streaming: SdkAgent;
let plain: SdkAgent;
let gone: SdkAgent;
let router: RunningRouter;

beforeAll(async () => {
  streaming = await new SdkAgent({ streaming: true, binding: "GRPC", ownContext: true, tenant: "team-a" }).start();
  plain = await new SdkAgent({ streaming: false, binding: "GRPC", ownContext: true }).start();
  gone = await new SdkAgent({ streaming: true, binding: "GRPC" }).start();
  router = await testRouter({
    config: {
      agents: [
        { id: "grpc", url: streaming.url, headers: { authorization: "Bearer upstream-secret" } },
        { id: "grpc-plain", url: plain.url },
        // The same agent with no card in sight: config names the binding, the url its gRPC host and port.
        { id: "grpc-forced", url: `http://${streaming.grpcTarget}`, protocol: "1.0+grpc" },
        { id: "grpc-gone", url: gone.url },
      ],
    },
  });
  await until(async () => (await getJson(`${router.url}/agents`)).agents.every((a: Json) => a.online), "every agent to be online");
});

afterAll(async () => {
  await router.close();
  await Promise.all([streaming.stop(), plain.stop(), gone.stop()]);
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
const callCount = (agent: SdkAgent, method: string) => agent.calls.filter((c) => c.method === method).length;

describe("discovery", () => {
  test("a card offering only GRPC, and config 1.0+grpc without a card: the agents are online", async () => {
    const { agents } = await getJson(`${router.url}/agents`);
    for (const id of ["grpc", "grpc-plain"]) {
      expect(agents.find((a: Json) => a.id === id)).toMatchObject({ transport: "http", online: true, name: "SDK shouter" });
    }
    expect(agents.find((a: Json) => a.id === "grpc-forced")).toMatchObject({ online: true, name: "grpc-forced" });
  });

  test("turns are gRPC calls with a2a-version 1.0, the configured headers as metadata and the card's tenant", async () => {
    const sent = await rpc(router.url, "SendMessage", CLIENTS["v1.0"].params("hi"), { ...path("grpc"), headers: CLIENTS["v1.0"].headers });
    expect(sent.error).toBeUndefined();
    const call = lastCall(streaming, "SendStreamingMessage");
    expect(call).toMatchObject({ version: "1.0", metadata: { authorization: "Bearer upstream-secret" } });
    expect(call.params.tenant).toBe("team-a");
    expect(call.params.message).toMatchObject({ role: "ROLE_USER", parts: [{ text: "hi" }] });
  });

  test("a non-streaming agent gets SendMessage; config 1.0+grpc speaks gRPC at the configured host and port", async () => {
    await rpc(router.url, "tasks/send", CLIENTS["v0.1"].params("plainly"), path("grpc-plain"));
    expect(lastCall(plain, "SendMessage").params.message.parts).toEqual([{ text: "plainly" }]);
    const before = streaming.calls.length;
    const sent = await rpc(router.url, "tasks/send", CLIENTS["v0.1"].params("forced"), path("grpc-forced"));
    expect(sent.result.status.state).toBe("completed");
    expect(artifactText(sent.result)).toBe("FORCED");
    expect(streaming.calls.slice(before).map((c) => [c.method, c.params.tenant])).toEqual([["SendStreamingMessage", undefined]]);
  });
});

describe.each(["v0.1", "v0.3", "v1.0"] as const)("a %s JSON-RPC client", (dialect) => {
  const client = CLIENTS[dialect];
  const call = (agent: string, method: string, params: unknown) => rpc(router.url, method, params, { ...path(agent), headers: client.headers });

  test("send (blocking) to a non-streaming gRPC agent: its answer and artifacts, the router's ids only", async () => {
    const before = plain.tasks.length;
    const sent = await call("grpc-plain", client.send, client.params("hello"));
    expect(sent.error).toBeUndefined();
    expect(client.stateOf(sent.result)).toBe("completed");
    expect(statusText(sent.result)).toBe("done");
    expect(artifactText(sent.result)).toBe("HELLO");
    const got = await call("grpc-plain", client.get, { id: client.taskIdOf(sent.result) });
    expect(client.stateOf(got.result)).toBe("completed");
    expectRouterIdsOnly(plain, before, [sent, got]);
  });

  test("stream from a streaming gRPC agent: progress, artifacts, the final snapshot; the router's ids only", async () => {
    const before = streaming.tasks.length;
    const s = await openStream(router.url, client.stream, client.params("hello"), { ...path("grpc"), headers: client.headers });
    const results = (await s.all()).map((e) => e.data.result as Json);
    expect(client.stateOf(results.at(-1)!)).toBe("completed");
    const statuses = results.map((r) => r.statusUpdate ?? r).filter((r) => r.status?.message !== undefined);
    expect(statuses.map((r) => [statusText(r), r.metadata?.textKind])).toEqual([
      ["working on: hello", "progress"],
      ["done", "snapshot"],
    ]);
    expect(results.map(artifactText).join("")).toBe("HELLO");
    expectRouterIdsOnly(streaming, before, results);
  });

  test("cancel of a running upstream task reaches the agent on its own task id", async () => {
    const cancels = callCount(streaming, "CancelTask");
    const s = await openStream(router.url, client.stream, client.params("hang"), { ...path("grpc"), headers: client.headers });
    const opening = await untilWorking(s, client);
    const taskId = client.taskIdOf(opening[0]!);
    const theirs = streaming.tasks.at(-1)!.taskId;

    const canceled = await call("grpc", client.cancel, { id: taskId });
    expect(client.stateOf(canceled.result)).toBe("canceled");
    const rest = (await s.all()).map((e) => e.data.result as Json);
    expect(client.stateOf(rest.at(-1)!)).toBe("canceled");

    await until(() => callCount(streaming, "CancelTask") > cancels, "the agent's CancelTask");
    expect(lastCall(streaming, "CancelTask").params).toMatchObject({ id: theirs, tenant: "team-a" });
    await until(() => streaming.canceled.includes(theirs), "the agent's executor to cancel");
    expect(JSON.stringify([opening, canceled, rest])).not.toContain(theirs);
  });

  test("an agent that asks back: the follow-up turn names the agent's own task and completes", async () => {
    const before = streaming.tasks.length;
    const first = await call("grpc", client.send, client.params("ask"));
    expect(client.stateOf(first.result)).toBe("input-required");
    expect(statusText(first.result)).toBe("which one?");
    const taskId = client.taskIdOf(first.result);
    const theirs = streaming.tasks.at(-1)!.taskId;

    const s = await openStream(router.url, client.stream, client.params("the red one", taskId), { ...path("grpc"), headers: client.headers });
    const results = (await s.all()).map((e) => e.data.result as Json);
    const last = results.at(-1)!;
    expect(client.stateOf(last)).toBe("completed");
    expect(statusText(last)).toBe("you said: the red one");
    expect(results.every((r) => client.taskIdOf(r) === taskId)).toBe(true);
    expect(lastCall(streaming, "SendStreamingMessage").params.message.taskId).toBe(theirs);
    expectRouterIdsOnly(streaming, before, [first, results]);
  });

  test("an upstream gRPC error fails the task with its status, A2A reason and message, in the router's ids", async () => {
    const first = await call("grpc-plain", client.send, client.params("ask"));
    const taskId = client.taskIdOf(first.result);
    const theirs = plain.tasks.at(-1)!.taskId;
    plain.forget(); // as after a restart: the agent answers the follow-up NOT_FOUND with ErrorInfo TASK_NOT_FOUND

    const second = await call("grpc-plain", client.send, client.params("the red one", taskId));
    expect(second.error).toBeUndefined();
    expect(client.stateOf(second.result)).toBe("failed");
    expect(statusText(second.result)).toBe(`Upstream agent grpc-plain answered gRPC NOT_FOUND (TASK_NOT_FOUND) on SendMessage: Task not found: ${taskId}`);
    expect(JSON.stringify(second)).not.toContain(theirs);
  });

  test("an upstream gRPC error on a stream fails the task alike", async () => {
    const first = await call("grpc", client.send, client.params("ask"));
    const taskId = client.taskIdOf(first.result);
    const theirs = streaming.tasks.at(-1)!.taskId;
    streaming.forget();

    const s = await openStream(router.url, client.stream, client.params("the red one", taskId), { ...path("grpc"), headers: client.headers });
    const last = (await s.all()).map((e) => e.data.result as Json).at(-1)!;
    expect(client.stateOf(last)).toBe("failed");
    expect(statusText(last)).toBe(`Upstream agent grpc answered gRPC NOT_FOUND (TASK_NOT_FOUND) on SendStreamingMessage: Task not found: ${taskId}`);
    expect(JSON.stringify(last)).not.toContain(theirs);
  });
});

describe("@a2a-js/sdk's REST client of the router", () => {
  let client: Client;
  beforeAll(async () => {
    const options = ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
      transports: [new RestTransportFactory()],
      preferredTransports: ["HTTP+JSON"],
    });
    client = await new ClientFactory(options).createFromUrl(`${router.url}/agents/grpc/`);
  });
  const send = (text: string, extra = {}) => ({ tenant: "", message: sdkMessage(text, extra), configuration: undefined, metadata: undefined });

  test("send, get and stream through the REST face to the gRPC agent", async () => {
    const before = streaming.tasks.length;
    const task = (await client.sendMessage(send("rest to grpc"))) as Task;
    expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(sdkText(task.artifacts.flatMap((a) => a.parts))).toBe("REST TO GRPC");
    expect((await client.getTask({ tenant: "", id: task.id, historyLength: undefined })).status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    const events = await collect(client.sendMessageStream(send("streamed")));
    const last = events.at(-1)!.payload!.value as { status: Task["status"] };
    expect(last.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expectRouterIdsOnly(streaming, before, [task, events]);
  });

  test("cancel through the REST face reaches the gRPC agent", async () => {
    const it = client.sendMessageStream(send("hang"))[Symbol.asyncIterator]();
    const taskId = (((await it.next()).value as StreamResponse).payload!.value as Task).id;
    // Once the agent's `working` status is through, the router knows the agent's task id.
    for (let r = await it.next(); !r.done; r = await it.next()) {
      const e = r.value as StreamResponse;
      if (e.payload?.$case === "statusUpdate" && e.payload.value.status?.state === TaskState.TASK_STATE_WORKING) break;
    }
    const theirs = streaming.tasks.at(-1)!.taskId;
    const canceled = await client.cancelTask({ tenant: "", id: taskId, metadata: undefined });
    expect(canceled.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
    await until(() => streaming.canceled.includes(theirs), "the agent's executor to cancel");
    await it.return?.(undefined);
  });
});

describe("an agent that went away", () => {
  test("a turn fails as unreachable and the agent goes offline", async () => {
    await gone.stop();
    const sent = await rpc(router.url, "tasks/send", CLIENTS["v0.1"].params("anyone?"), path("grpc-gone"));
    expect(sent.result.status.state).toBe("failed");
    expect(statusText(sent.result)).toBe("Upstream agent grpc-gone is unreachable (ECONNREFUSED)");
    const { agents } = await getJson(`${router.url}/agents`);
    expect(agents.find((a: Json) => a.id === "grpc-gone").online).toBe(false);
  });
});
