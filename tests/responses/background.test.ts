/**
 * CONTRACT 15, the long-running side, with the `openai` npm client: background responses, a dropped stream
 * resumed exactly from its sequence number (`responses.retrieve` with `stream`/`starting_after`, and the
 * `responses.stream` helper), cancel, a failing agent that runs once, ownership and keys.
 */
import { afterAll, beforeAll, describe, expect, test } from "@jest/globals";
import OpenAI, { AuthenticationError, ConflictError, NotFoundError } from "openai";
import type { ResponseStreamEvent } from "openai/resources/responses/responses";
import { agentText } from "../../router/core/model.js";
import { startRouter, type RunningRouter } from "../../router/index.js";
import { SteppedAgent } from "../chat/helpers.js";
import { scriptedAgent } from "../helpers/agents.js";
import { until } from "../helpers/until.js";
import { summaries } from "./helpers.js";

let router: RunningRouter;
let stepped: SteppedAgent;
let alice: OpenAI;
let bob: OpenAI;
let breakerRuns = 0;

/** A hosted agent that fails its turn, counting its runs. */
const breaker = scriptedAgent("breaker", async function* () {
  breakerRuns += 1;
  yield { kind: "status", status: { state: "failed", message: agentText("the tool broke") }, final: true };
});

beforeAll(async () => {
  router = await startRouter({
    host: "127.0.0.1",
    port: 0,
    store: "memory",
    hostedAgents: [breaker],
    config: {
      apiKeys: [
        { key: "key-alice", name: "alice" },
        { key: "key-bob", name: "bob" },
      ],
      hub: { allowAnonymous: true },
    },
  });
  stepped = new SteppedAgent(`${router.url.replace(/^http/, "ws")}/hub`, "stepper");
  await stepped.agent.ready;
  alice = new OpenAI({ baseURL: `${router.url}/v1`, apiKey: "key-alice", maxRetries: 0 });
  bob = new OpenAI({ baseURL: `${router.url}/v1`, apiKey: "key-bob", maxRetries: 0 });
});

afterAll(async () => {
  await stepped.agent.close();
  await router.close();
});

/** Reads a stream to its end. */
async function all(stream: AsyncIterable<ResponseStreamEvent>): Promise<ResponseStreamEvent[]> {
  const events: ResponseStreamEvent[] = [];
  for await (const event of stream) events.push(event);
  return events;
}

describe("background responses", () => {
  test("answers at once (queued), reads in progress with its progress, then completed", async () => {
    stepped.reset();
    const created = await alice.responses.create({ model: "stepper", input: "world", background: true });
    expect(created.status).toBe("queued");
    expect(created.background).toBe(true);
    expect(created.output).toEqual([]);
    await stepped.reached("status-1");
    await until(async () => summaries(await alice.responses.retrieve(created.id)).length === 1);
    const running = await alice.responses.retrieve(created.id);
    expect(running.status).toBe("in_progress");
    expect(running.metadata?.a2a_state).toBe("working");
    expect(summaries(running)).toEqual(["Looking things up"]);
    stepped.release("step-1");
    stepped.release("step-2");
    await until(async () => (await alice.responses.retrieve(created.id)).status === "completed");
    const done = await alice.responses.retrieve(created.id);
    expect(done.output_text).toBe("Hello world!");
    expect(summaries(done)).toEqual(["Looking things up", "Writing the answer"]);
  });

  test("background and stream: the create streams, opening queued", async () => {
    const events = await all(await alice.responses.create({ model: "echo", input: "both", background: true, stream: true }));
    expect(events[0]).toMatchObject({ type: "response.created", response: { status: "queued", background: true } });
    expect(events[1]).toMatchObject({ type: "response.in_progress", response: { status: "in_progress" } });
    expect(events.at(-1)).toMatchObject({ type: "response.completed", response: { status: "completed", background: true } });
  });

  test("a dropped stream resumes exactly from its sequence number: no event twice, none lost, in order", async () => {
    stepped.reset();
    const stream = await alice.responses.create({ model: "stepper", input: "again", stream: true });
    const before: ResponseStreamEvent[] = [];
    for await (const event of stream) {
      before.push(event);
      if (event.type === "response.reasoning_summary_text.delta") break; // the client goes away mid-turn
    }
    const id = (before[0] as { response: { id: string } }).response.id;
    const last = before.at(-1)!.sequence_number;
    // Going away never cancels: the turn goes on.
    stepped.release("step-1");
    stepped.release("step-2");
    const after = await all(await alice.responses.retrieve(id, { stream: true, starting_after: last }));
    const joined = [...before, ...after];
    expect(joined.map((e) => e.sequence_number)).toEqual(joined.map((_, i) => i));
    expect(joined.at(-1)!.type).toBe("response.completed");
    // The same events as a replay from the start, byte for byte.
    const replay = await all(await alice.responses.retrieve(id, { stream: true }));
    expect(JSON.stringify(joined)).toBe(JSON.stringify(replay));
    const text = joined.flatMap((e) => (e.type === "response.output_text.delta" ? [e.delta] : [])).join("");
    expect(text).toBe("Hello again!");
    // The stream helper resumes the same way.
    const helper = alice.responses.stream({ response_id: id, starting_after: 4 });
    const seen: number[] = [];
    helper.on("event", (e) => seen.push(e.sequence_number));
    const final = await helper.finalResponse();
    expect(final.output_text).toBe("Hello again!");
    expect(seen).toEqual(replay.slice(5).map((e) => e.sequence_number));
  });

  test("cancel: the agent is told, the response reads cancelled, a stream of it ends incomplete", async () => {
    stepped.reset();
    const canceledBefore = stepped.canceled;
    const created = await alice.responses.create({ model: "stepper", input: "hang", background: true });
    await stepped.reached("hanging");
    const cancelled = await alice.responses.cancel(created.id);
    expect(cancelled.status).toBe("cancelled");
    expect(cancelled.metadata?.a2a_state).toBe("canceled");
    await until(() => stepped.canceled === canceledBefore + 1);
    expect((await alice.responses.retrieve(created.id)).status).toBe("cancelled");
    expect((await alice.responses.cancel(created.id)).status).toBe("cancelled");
    const replay = await all(await alice.responses.retrieve(created.id, { stream: true }));
    expect(replay.at(-1)).toMatchObject({ type: "response.incomplete", response: { status: "cancelled" } });
    // A finished response cannot be cancelled.
    const done = await alice.responses.create({ model: "echo", input: "x" });
    const err = await alice.responses.cancel(done.id).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConflictError);
  });
});

describe("a failing agent", () => {
  test("runs once per request, streamed or not, even with a client that retries", async () => {
    const retrying = new OpenAI({ baseURL: `${router.url}/v1`, apiKey: "key-alice", maxRetries: 2 });
    const runs = breakerRuns;
    const response = await retrying.responses.create({ model: "breaker", input: "go" });
    expect(response.status).toBe("failed");
    expect(response.error?.message).toBe("the tool broke");
    expect(breakerRuns).toBe(runs + 1);
    const events = await all(await retrying.responses.create({ model: "breaker", input: "go", stream: true }));
    expect(events.at(-1)).toMatchObject({ type: "response.failed", response: { status: "failed", error: { message: "the tool broke" } } });
    expect(breakerRuns).toBe(runs + 2);
  });
});

describe("Idempotency-Key (CONTRACT 14)", () => {
  test("a retry with the same key gets the same response and never runs the turn again; another body is a conflict", async () => {
    const runs = breakerRuns;
    const first = await alice.responses.create({ model: "breaker", input: "once" }, { headers: { "Idempotency-Key": "resp-key-1" } });
    const again = await alice.responses.create({ model: "breaker", input: "once" }, { headers: { "Idempotency-Key": "resp-key-1" } });
    expect(again.id).toBe(first.id);
    expect(again.status).toBe("failed");
    expect(breakerRuns).toBe(runs + 1);
    const res = await fetch(`${router.url}/v1/responses`, {
      method: "POST",
      headers: { authorization: "Bearer key-alice", "content-type": "application/json", "idempotency-key": "resp-key-1" },
      body: JSON.stringify({ model: "breaker", input: "another body" }),
    });
    expect(res.status).toBe(409);
    expect(res.headers.get("x-should-retry")).toBe("false");
    expect(await res.json()).toMatchObject({ error: { message: expect.stringContaining("Idempotency-Key") } });
    expect(breakerRuns).toBe(runs + 1);
  });

  test("the same key from another owner is another turn", async () => {
    const mine = await alice.responses.create({ model: "echo", input: "hi" }, { headers: { "Idempotency-Key": "resp-key-2" } });
    const theirs = await bob.responses.create({ model: "echo", input: "hi" }, { headers: { "Idempotency-Key": "resp-key-2" } });
    expect(theirs.id).not.toBe(mine.id);
    expect(theirs.output_text).toBe(mine.output_text);
  });
});

describe("keys and ownership (CONTRACT 12)", () => {
  test("another key's response is not found: retrieve, stream, cancel, previous_response_id", async () => {
    const mine = await alice.responses.create({ model: "echo", input: "private" });
    for (const attempt of [
      () => bob.responses.retrieve(mine.id),
      () => bob.responses.retrieve(mine.id, { stream: true }),
      () => bob.responses.cancel(mine.id),
      () => bob.responses.create({ model: "echo", input: "x", previous_response_id: mine.id }),
    ]) {
      const err = await attempt().catch((e: unknown) => e);
      expect(err).toBeInstanceOf(NotFoundError);
    }
    expect((await alice.responses.retrieve(mine.id)).output_text).toBe("private");
  });

  test("no key or a wrong key: 401 in OpenAI's shape", async () => {
    const stranger = new OpenAI({ baseURL: `${router.url}/v1`, apiKey: "key-wrong", maxRetries: 0 });
    const err = await stranger.responses.create({ model: "echo", input: "x" }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AuthenticationError);
    expect((err as AuthenticationError).type).toBe("authentication_error");
    const created = await alice.responses.create({ model: "echo", input: "x" });
    for (const [method, path] of [
      ["POST", "/v1/responses"],
      ["GET", `/v1/responses/${created.id}`],
      ["POST", `/v1/responses/${created.id}/cancel`],
    ] as const) {
      const res = await fetch(`${router.url}${path}`, { method, headers: { "content-type": "application/json" }, body: method === "POST" ? "{}" : undefined });
      expect(res.status).toBe(401);
      expect(await res.json()).toMatchObject({ error: { type: "authentication_error", message: expect.any(String) } });
    }
  });
});
