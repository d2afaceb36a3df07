import { afterAll, beforeAll, expect, test } from "@jest/globals";
import { RPC_ERROR_CODES } from "../../router/rpc/errors.js";
import { completeAgent } from "../../agents/examples/ws-complete-agent.js";
import { startHttpSseAgent, type RunningHttpAgent } from "../../agents/examples/http-sse-agent.js";
import { streamingAgent } from "../../agents/examples/ws-streaming-agent.js";
import type { Agent } from "../../agents/sdk/index.js";
import { startRouter, type RunningRouter } from "../../router/index.js";
import { memoryLogger, rpc, sendParams, stream, text } from "./helpers.js";

let router: RunningRouter;
let httpAgent: RunningHttpAgent;
let streamer: Agent;
let counter: Agent;

beforeAll(async () => {
  httpAgent = await startHttpSseAgent({ port: 0 });
  router = await startRouter({
    port: 0,
    store: "memory",
    config: { agents: [{ id: "reverser", url: httpAgent.url }], hub: { tokens: { "stream-token": "streamer", "count-token": "counter" } } },
  });
  const url = `${router.url.replace(/^http/, "ws")}/hub`;
  streamer = streamingAgent({ url, name: "streamer", token: "stream-token", logger: memoryLogger() });
  counter = completeAgent({ url, name: "counter", token: "count-token", logger: memoryLogger() });
  await Promise.all([streamer.ready, counter.ready]);
});

afterAll(async () => {
  await Promise.all([streamer.close(), counter.close()]);
  await router.close();
  await httpAgent.close();
});

test("the streaming example streams each prime as it is found", async () => {
  const events = await stream(router.url, "tasks/sendSubscribe", sendParams("streamer", "primes up to 20", { metadata: { skill: "primes" } }));
  expect(events.filter((e) => !e.result.final).map(text)).toEqual(["2", ", 3", ", 5", ", 7", ", 11", ", 13", ", 17", ", 19"]);
  expect(events.at(-1)!.result).toMatchObject({ final: true, status: { state: "completed" }, metadata: { primes: 8 } });
  expect(text(events.at(-1)!)).toBe("2, 3, 5, 7, 11, 13, 17, 19");
});

test("the streaming example streams a CSV file as artifact chunks", async () => {
  const params = sendParams("streamer", "table 12", { metadata: { skill: "table" } });
  const events = await stream(router.url, "tasks/sendSubscribe", params);
  const chunks = events.filter((e) => e.result.artifact);
  expect(chunks.map((e) => [e.result.artifact!.append ?? false, e.result.artifact!.lastChunk ?? false])).toEqual([
    [false, false],
    [true, false],
    [true, true],
  ]);
  const csv = chunks.map(text).join("");
  expect(csv.split("\n")[0]).toBe("n,square,cube");
  expect(csv.trim().split("\n").at(-1)).toBe("12,144,1728");
  expect(text(events.at(-1)!)).toBe("wrote table.csv with 12 rows");
});

test("the non-streaming example answers once, with its cost", async () => {
  const events = await stream(router.url, "tasks/sendSubscribe", sendParams("counter", "three small words"));
  expect(events.map((e) => [e.result.status!.state, e.result.final])).toEqual([
    ["working", false],
    ["completed", true],
  ]);
  expect(text(events[0]!)).toBe("3 words, 17 characters, 1 line");
  // The one answer, shown first as a working status: both texts are the whole answer, snapshots (CONTRACT 9).
  expect(events[0]!.result.metadata).toEqual({ textKind: "snapshot" });
  expect(events[1]!.result.metadata).toEqual({ cost: { inputCharacters: 17, usd: 0.000034 }, textKind: "snapshot" });
});

test("the non-streaming example's compare skill asks for the second text, then answers on the same task", async () => {
  const first = await rpc(router.url, "tasks/send", sendParams("counter", "one", { metadata: { skill: "compare" } }));
  expect(first.status).toMatchObject({ state: "input-required" });
  expect(first.status.message.parts[0].text).toBe("Got your first text (1 word, 3 characters, 1 line). What should I compare it with?");
  // The follow-up names neither agent nor skill: the task remembers both.
  const second = await rpc(router.url, "tasks/send", { id: first.id, message: { role: "user", parts: [{ type: "text", text: "two three" }] } });
  expect(second.status.state).toBe("completed");
  expect(second.status.message.parts[0].text).toBe("first: 1 word, 3 characters, 1 line; second: 2 words, 9 characters, 1 line; 1 word more in the second.");
  const same = await rpc(router.url, "tasks/send", sendParams("counter", "a b", { metadata: { skill: "compare" } }));
  const equal = await rpc(router.url, "tasks/send", { id: same.id, message: { role: "user", parts: [{ type: "text", text: "c d" }] } });
  expect(equal.status.message.parts[0].text).toBe("first: 2 words, 3 characters, 1 line; second: 2 words, 3 characters, 1 line; the same number of words.");
});

test("the upstream HTTP example streams through the router, and answers tasks/send", async () => {
  const events = await stream(router.url, "tasks/sendSubscribe", sendParams("reverser", "hello world"));
  expect(events.filter((e) => !e.result.final).map(text)).toEqual(["olleh", " ", "dlrow"]);
  expect(events.at(-1)!.result).toMatchObject({ final: true, status: { state: "completed" } });
  const task = await rpc(router.url, "tasks/send", sendParams("reverser", "abc def"));
  expect(task.status.message.parts[0].text).toBe("cba fed");
});

test("the upstream HTTP example answers its own errors in JSON-RPC", async () => {
  const res = await fetch(httpAgent.url, { method: "POST", body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tasks/get", params: { id: "nope" } }) });
  expect(await res.json()).toEqual({
    jsonrpc: "2.0",
    id: 1,
    error: { code: RPC_ERROR_CODES.TASK_NOT_FOUND, message: "Task not found: nope", data: { taskId: "nope" } },
  });
  const bad = await fetch(httpAgent.url, { method: "POST", body: "{" });
  expect(((await bad.json()) as { error: { code: number } }).error.code).toBe(RPC_ERROR_CODES.PARSE_ERROR);
});
