/**
 * The OpenAI Responses face (CONTRACT 15) driven by the `openai` npm client, unchanged: create (stream or
 * not), the stream helper, retrieve, input-required as a completed response, progress as reasoning summaries,
 * a failing agent, errors in OpenAI's shape.
 */
import { afterAll, beforeAll, describe, expect, test } from "@jest/globals";
import OpenAI, { BadRequestError, NotFoundError } from "openai";
import type { ResponseStreamEvent } from "openai/resources/responses/responses";
import { startChatRig, type ChatRig } from "../chat/helpers.js";
import { QUESTION, expectBooked, summaries, typesOf } from "./helpers.js";

let rig: ChatRig;
let client: OpenAI;

beforeAll(async () => {
  rig = await startChatRig();
  client = new OpenAI({ baseURL: `${rig.router.url}/v1`, apiKey: "unused", maxRetries: 0 });
});

afterAll(async () => {
  await rig.close();
});

/** Every event of a streamed create. */
async function streamEvents(body: Parameters<OpenAI["responses"]["create"]>[0]): Promise<ResponseStreamEvent[]> {
  const stream = await client.responses.create({ ...body, stream: true });
  const events: ResponseStreamEvent[] = [];
  for await (const event of stream) events.push(event);
  return events;
}

describe("POST /v1/responses", () => {
  test("echo: output_text is the answer, the ids and state in metadata, request metadata given back", async () => {
    const response = await client.responses.create({ model: "echo", input: "hi there", metadata: { ticket: "42" } });
    expect(response.object).toBe("response");
    expect(response.id).toMatch(/^resp_[A-Za-z0-9_-]+$/);
    expect(response.status).toBe("completed");
    expect(response.output_text).toBe("hi there");
    expect(response.model).toBe("echo");
    expect(response.metadata).toMatchObject({ ticket: "42", a2a_state: "completed" });
    expect(response.metadata?.a2a_task_id).toEqual(expect.any(String));
    expect(response.metadata?.a2a_context_id).toEqual(expect.any(String));
    // No progress: no reasoning item.
    expect(response.output.map((o) => o.type)).toEqual(["message"]);
    const again = await client.responses.retrieve(response.id);
    expect(again).toEqual(response);
  });

  test("input as message items: the last user message is the turn's message", async () => {
    const response = await client.responses.create({
      model: "echo",
      input: [
        { role: "system", content: "be brief" },
        { role: "user", content: "first" },
        { role: "assistant", content: "first" },
        { type: "message", role: "user", content: [{ type: "input_text", text: "second" }] },
      ],
    });
    expect(response.output_text).toBe("second");
  });

  test("streamed: typed events with strictly increasing sequence numbers; the deltas are the answer", async () => {
    const events = await streamEvents({ model: "echo", input: "stream me" });
    expect(events.map((e) => e.sequence_number)).toEqual(events.map((_, i) => i));
    expect(typesOf(events)).toEqual([
      "response.created",
      "response.in_progress",
      "response.output_item.added",
      "response.content_part.added",
      "response.output_text.delta",
      "response.output_text.done",
      "response.content_part.done",
      "response.output_item.done",
      "response.completed",
    ]);
    const text = events.flatMap((e) => (e.type === "response.output_text.delta" ? [e.delta] : [])).join("");
    expect(text).toBe("stream me");
  });

  test("the stream helper: text deltas, then the final response", async () => {
    const stream = client.responses.stream({ model: "echo", input: "helper" });
    let deltas = "";
    stream.on("response.output_text.delta", (e) => {
      deltas += e.delta;
    });
    const final = await stream.finalResponse();
    expect(deltas).toBe("helper");
    expect(final.output_text).toBe("helper");
    expect(final.status).toBe("completed");
  });

  test("a hub agent with progress: reasoning summary parts in OpenAI's full shape, never in output_text", async () => {
    rig.stepped.reset();
    rig.stepped.release("step-1");
    rig.stepped.release("step-2");
    const events = await streamEvents({ model: "stepper", input: "world" });
    expect(typesOf(events).slice(0, 12)).toEqual([
      "response.created",
      "response.in_progress",
      "response.output_item.added",
      "response.reasoning_summary_part.added",
      "response.reasoning_summary_text.delta",
      "response.reasoning_summary_text.done",
      "response.reasoning_summary_part.done",
      "response.reasoning_summary_part.added",
      "response.reasoning_summary_text.delta",
      "response.reasoning_summary_text.done",
      "response.reasoning_summary_part.done",
      "response.output_item.done",
    ]);
    const deltas = events.flatMap((e) => (e.type === "response.output_text.delta" ? [e.delta] : []));
    expect(deltas).toEqual(["Hello ", "world!"]);
    const done = events.at(-1)!;
    expect(done.type).toBe("response.completed");
    const response = (done as { response: OpenAI.Responses.Response }).response;
    expect(response.output.map((o) => o.type)).toEqual(["reasoning", "message"]);
    expect(summaries(response)).toEqual(["Looking things up", "Writing the answer"]);
    const retrieved = await client.responses.retrieve(response.id);
    expect(retrieved.output_text).toBe("Hello world!");
    expect(summaries(retrieved)).toEqual(["Looking things up", "Writing the answer"]);
  });

  test("artifacts that are not the answer are summary lines; the final message is the answer", async () => {
    const response = await client.responses.create({ model: "artist", input: "draw" });
    expect(response.output_text).toBe("Here is your chart.");
    expect(summaries(response)).toEqual(['chart: {"bars":[1,2],"title":"sales"}', "report: [report.pdf](https://example.com/report.pdf)"]);
  });

  test("an upstream A2A agent: progress and artifacts as reasoning, the final message as answer", async () => {
    const response = await client.responses.create({ model: "shouter", input: "hello" });
    expect(response.output_text).toBe("done");
    expect(summaries(response)).toEqual(["working on: hello", "shout: HELLO"]);
  });

  test("eliza asks back: completed with the question; previous_response_id books the flight", async () => {
    const first = await client.responses.create({ model: "eliza", input: "book a flight to Paris tomorrow" });
    expect(first.status).toBe("completed");
    expect(first.output_text).toContain(QUESTION);
    expect(first.metadata?.a2a_state).toBe("input-required");
    const second = await client.responses.create({ model: "eliza", input: "from London", previous_response_id: first.id });
    expect(second.status).toBe("completed");
    expect(second.metadata?.a2a_state).toBe("completed");
    expectBooked(second.output_text);
    // The same task, continued (CONTRACT 14), in the same session; each turn its own response.
    expect(second.metadata?.a2a_task_id).toBe(first.metadata?.a2a_task_id);
    expect(second.metadata?.a2a_context_id).toBe(first.metadata?.a2a_context_id);
    expect(second.id).not.toBe(first.id);
    expect(second.previous_response_id).toBe(first.id);
    // The first response still reads as it was.
    expect((await client.responses.retrieve(first.id)).output_text).toBe(first.output_text);
  });

  test("previous_response_id of a finished conversation: a new task in the same session", async () => {
    const first = await client.responses.create({ model: "echo", input: "one" });
    const second = await client.responses.create({ model: "echo", input: "two", previous_response_id: first.id });
    expect(second.output_text).toBe("two");
    expect(second.metadata?.a2a_context_id).toBe(first.metadata?.a2a_context_id);
    expect(second.metadata?.a2a_task_id).not.toBe(first.metadata?.a2a_task_id);
  });

  test("a failing agent: HTTP 200, status failed, error.message the agent's text; streamed: response.failed", async () => {
    rig.stepped.reset();
    const response = await client.responses.create({ model: "stepper", input: "fail" });
    expect(response.status).toBe("failed");
    expect(response.error?.message).toContain("the tool broke");
    expect(response.metadata?.a2a_state).toBe("failed");
    const events = await streamEvents({ model: "stepper", input: "fail" });
    const last = events.at(-1)!;
    expect(last.type).toBe("response.failed");
    expect((last as { response: OpenAI.Responses.Response }).response.error?.message).toContain("the tool broke");
  });
});

describe("errors in OpenAI's shape", () => {
  test("an unknown model: 404 naming model", async () => {
    const err = await client.responses.create({ model: "nobody", input: "x" }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(NotFoundError);
    expect((err as NotFoundError).param).toBe("model");
  });

  test("bad input names the field", async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ model: "echo" }, "input"],
      [{ model: "echo", input: [] }, "input"],
      [{ model: "echo", input: [{ role: "assistant", content: "x" }] }, "input"],
      [{ model: "echo", input: [{ role: "user", content: [{ type: "input_image", file_id: "file-1" }] }] }, "input[0].content[0].file_id"],
      [{ model: "echo", input: "x", stream: "yes" }, "stream"],
      [{ model: "echo", input: "x", metadata: { n: 1 } }, "metadata.n"],
      [{ model: "echo", input: "x", metadata: { a2a_state: "x" } }, "metadata.a2a_state"],
      [{ model: 7, input: "x" }, "model"],
      [{ model: "echo", input: "x", previous_response_id: 5 }, "previous_response_id"],
    ];
    for (const [body, param] of cases) {
      const err = await client.responses.create(body as never).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(BadRequestError);
      expect({ param: (err as BadRequestError).param, type: (err as BadRequestError).type }).toEqual({ param, type: "invalid_request_error" });
    }
  });

  test("an unknown or malformed response id: 404", async () => {
    for (const id of ["resp_nope", "resp_" + Buffer.from("0.0.no-such-task").toString("base64url"), "chatcmpl-1"]) {
      const err = await client.responses.retrieve(id).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(NotFoundError);
      expect((err as NotFoundError).code).toBe("response_not_found");
    }
    const err = await client.responses.create({ model: "echo", input: "x", previous_response_id: "resp_nope" }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(NotFoundError);
    expect((err as NotFoundError).param).toBe("previous_response_id");
  });

  test("a body that is not JSON, and a bad starting_after", async () => {
    const res = await fetch(`${rig.router.url}/v1/responses`, { method: "POST", headers: { "content-type": "application/json" }, body: "{" });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ error: { type: "invalid_request_error", param: "body" } });
    const created = await client.responses.create({ model: "echo", input: "x" });
    const bad = await fetch(`${rig.router.url}/v1/responses/${created.id}?stream=true&starting_after=-3`);
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ error: { param: "starting_after" } });
  });
});
