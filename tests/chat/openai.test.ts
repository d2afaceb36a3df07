/** The OpenAI-compatible face (CONTRACT 10) driven by the `openai` npm client, unchanged, for every agent kind. */
import { afterAll, beforeAll, describe, expect, test } from "@jest/globals";
import OpenAI, { APIError, AuthenticationError, NotFoundError } from "openai";
import { startRouter } from "../../router/index.js";
import { MAX_ID_CHARS } from "../../router/service/index.js";
import { startChatRig, type ChatRig } from "./helpers.js";

let rig: ChatRig;
let client: OpenAI;

beforeAll(async () => {
  rig = await startChatRig();
  client = new OpenAI({ baseURL: `${rig.router.url}/v1`, apiKey: "unused", maxRetries: 0 });
});

afterAll(async () => {
  await rig.close();
});

/** Streams a completion; returns the content and reasoning as sent, and the finish reasons. */
async function streamed(model: string, text: string, user?: string) {
  const stream = await client.chat.completions.create({ model, stream: true, messages: [{ role: "user", content: text }], ...(user && { user }) });
  let content = "";
  const reasoning: string[] = [];
  const finish: Array<string | null> = [];
  for await (const chunk of stream) {
    const choice = chunk.choices[0]!;
    const delta = choice.delta as { content?: string; reasoning_content?: string };
    if (delta.content) content += delta.content;
    if (delta.reasoning_content) reasoning.push(delta.reasoning_content);
    if (choice.finish_reason) finish.push(choice.finish_reason);
    expect(chunk.object).toBe("chat.completion.chunk");
    expect(chunk.model).toBe(model);
  }
  return { content, reasoning, finish };
}

describe("GET /v1/models", () => {
  test("one model per agent, id = agent id, in OpenAI's list format", async () => {
    const ids = [];
    for await (const model of client.models.list()) {
      expect(model.object).toBe("model");
      ids.push(model.id);
    }
    expect(ids.sort()).toEqual(["artist", "echo", "eliza", "shouter", "stepper"]);
    expect((await client.models.retrieve("echo")).id).toBe("echo");
  });
});

describe("POST /v1/chat/completions", () => {
  test("echo: the answer in content, streamed and not", async () => {
    const reply = await client.chat.completions.create({ model: "echo", messages: [{ role: "user", content: "hi there" }] });
    expect(reply.object).toBe("chat.completion");
    expect(reply.choices[0]!.message.content).toBe("hi there");
    expect(reply.choices[0]!.finish_reason).toBe("stop");
    const s = await streamed("echo", "hi there");
    expect(s.content).toBe("hi there");
    expect(s.finish).toEqual(["stop"]);
    const withUsage = await client.chat.completions.create({
      model: "echo",
      stream: true,
      stream_options: { include_usage: true },
      messages: [{ role: "user", content: "x" }],
    });
    const chunks = [];
    for await (const chunk of withUsage) chunks.push(chunk);
    expect(chunks.at(-1)).toMatchObject({ choices: [], usage: { total_tokens: 0 } });
  });

  test("eliza: a callback action; content concatenates to the answer, progress goes to reasoning, the answer never", async () => {
    const answer = "Sure! Let me play that.\n\nNow playing: **Some Jazz**";
    const s = await streamed("eliza", "play some jazz");
    expect(s.content).toBe(answer);
    // The callback's snapshots are lines of the answer: none of them is repeated in the reasoning (CONTRACT 14).
    expect(s.reasoning).toContain("✨ Setting up playback...\n");
    expect(s.reasoning.some((r) => r.includes("Now playing") || r.includes("Sure! Let me play that."))).toBe(false);
    expect(s.finish).toEqual(["stop"]);
    const reply = await client.chat.completions.create({ model: "eliza", messages: [{ role: "user", content: "play some jazz" }] });
    expect(reply.choices[0]!.message.content).toBe(answer);
  });

  test("a hub agent: progress lines in reasoning_content, the answer exactly in content", async () => {
    rig.stepped.reset();
    rig.stepped.release("step-1");
    rig.stepped.release("step-2");
    const s = await streamed("stepper", "world");
    expect(s.content).toBe("Hello world!");
    expect(s.reasoning.slice(0, 2)).toEqual(["Looking things up\n", "Writing the answer\n"]);
    expect(s.finish).toEqual(["stop"]);
  });

  test("a hub agent's chunks are content deltas as they come (needs hub chunks with textKind delta)", async () => {
    rig.stepped.reset();
    rig.stepped.release("step-1");
    rig.stepped.release("step-2");
    const stream = await client.chat.completions.create({ model: "stepper", stream: true, messages: [{ role: "user", content: "world" }] });
    const contents: string[] = [];
    const reasoning: string[] = [];
    for await (const chunk of stream) {
      const delta = chunk.choices[0]!.delta as { content?: string; reasoning_content?: string };
      if (delta.content) contents.push(delta.content);
      if (delta.reasoning_content) reasoning.push(delta.reasoning_content);
    }
    expect(contents).toEqual(["Hello ", "world!"]);
    expect(reasoning).toEqual(["Looking things up\n", "Writing the answer\n"]);
  });

  test("an upstream A2A agent: the final message is the answer; progress and its artifacts are reasoning", async () => {
    const reply = await client.chat.completions.create({ model: "shouter", messages: [{ role: "user", content: "hello" }] });
    expect(reply.choices[0]!.message.content).toBe("done");
    expect((reply.choices[0]!.message as { reasoning_content?: string }).reasoning_content).toBe("working on: hello\nshout: HELLO");
    const s = await streamed("shouter", "hello");
    expect(s.content).toBe("done");
    expect(s.reasoning.join("")).toBe("working on: hello\nshout: HELLO");
    expect(s.finish).toEqual(["stop"]);
  });

  test("artifacts that are not the answer go to reasoning_content", async () => {
    const s = await streamed("artist", "draw");
    expect(s.content).toBe("Here is your chart.");
    // One line per artifact: a new artifact starts a new line.
    expect(s.reasoning.join("")).toBe('chart: {"bars":[1,2],"title":"sales"}\nreport: [report.pdf](https://example.com/report.pdf)');
  });

  test("a failed turn: an error chunk, then [DONE]; non-stream answers 502 in OpenAI's shape", async () => {
    const stream = await client.chat.completions.create({ model: "stepper", stream: true, messages: [{ role: "user", content: "fail" }] });
    const seen: string[] = [];
    const error = await (async () => {
      try {
        for await (const chunk of stream) seen.push(JSON.stringify(chunk.choices[0]?.delta));
      } catch (err) {
        return err;
      }
    })();
    expect(error).toBeInstanceOf(APIError);
    expect((error as APIError).message).toContain("the tool broke");
    expect((error as APIError).type).toBe("server_error");
    expect((error as APIError).code).toBe("agent_failed");

    const res = await fetch(`${rig.router.url}/v1/chat/completions`, {
      method: "POST",
      body: JSON.stringify({ model: "stepper", stream: true, messages: [{ role: "user", content: "fail" }] }),
    });
    const frames = (await res.text()).split("\n\n").filter((f) => f.startsWith("data: "));
    expect(JSON.parse(frames.at(-2)!.slice(6))).toMatchObject({ error: { type: "server_error", code: "agent_failed" } });
    expect(frames.at(-1)).toBe("data: [DONE]");

    const blocking = await fetch(`${rig.router.url}/v1/chat/completions`, {
      method: "POST",
      body: JSON.stringify({ model: "stepper", messages: [{ role: "user", content: "fail" }] }),
    });
    expect(blocking.status).toBe(502);
    expect(await blocking.json()).toMatchObject({ error: { type: "server_error", code: "agent_failed" } });
  });

  test("an unknown model is 404 model_not_found; a bad request is 400, both in OpenAI's error shape", async () => {
    const err = await client.chat.completions.create({ model: "nobody", messages: [{ role: "user", content: "x" }] }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(NotFoundError);
    expect(err).toMatchObject({ status: 404, code: "model_not_found", type: "invalid_request_error", param: "model" });
    const bad = await fetch(`${rig.router.url}/v1/chat/completions`, { method: "POST", body: JSON.stringify({ model: "echo", messages: [] }) });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toEqual({
      error: { message: "messages must be a non-empty array", type: "invalid_request_error", param: "messages", code: "invalid_request" },
    });
    const notJson = await fetch(`${rig.router.url}/v1/chat/completions`, { method: "POST", body: "{" });
    expect(notJson.status).toBe(400);
  });

  test.each([
    [{ model: 5 }, "model", "model must be a string (an agent id; see GET /v1/models)"],
    [{ stream: "true" }, "stream", "stream must be a boolean"],
    [{ user: 42 }, "user", "user must be a string (the end user's label)"],
  ])("a field of the wrong type (%j) is 400 naming it, not silently ignored", async (patch, param, message) => {
    const body = { model: "echo", messages: [{ role: "user", content: "x" }], ...patch };
    const r = await fetch(`${rig.router.url}/v1/chat/completions`, { method: "POST", body: JSON.stringify(body) });
    expect(r.status).toBe(400);
    expect(await r.json()).toEqual({ error: { message, type: "invalid_request_error", param, code: "invalid_request" } });
  });

  test("a user label or an X-Session-Id longer than the id limit is 400 naming where it came from", async () => {
    const long = "s".repeat(MAX_ID_CHARS + 1);
    const viaUser = await fetch(`${rig.router.url}/v1/chat/completions`, {
      method: "POST",
      body: JSON.stringify({ model: "echo", messages: [{ role: "user", content: "x" }], user: long }),
    });
    expect(viaUser.status).toBe(400);
    expect(await viaUser.json()).toEqual({
      error: {
        message: `user is longer than ${MAX_ID_CHARS} characters`,
        type: "invalid_request_error",
        param: "user",
        code: "invalid_request",
      },
    });
    const viaHeader = await fetch(`${rig.router.url}/v1/chat/completions`, {
      method: "POST",
      headers: { "x-session-id": long },
      body: JSON.stringify({ model: "echo", messages: [{ role: "user", content: "x" }] }),
    });
    expect(viaHeader.status).toBe(400);
    expect(((await viaHeader.json()) as { error: { param: string } }).error.param).toBe("X-Session-Id");
    const atLimit = await client.chat.completions.create({ model: "echo", messages: [{ role: "user", content: "x" }], user: long.slice(1) });
    expect(atLimit.choices[0]!.message.content).toBe("x");
  });

  test("X-Session-Id is the A2A session: turns share the context id, eliza remembers by it", async () => {
    const session = `s-${crypto.randomUUID()}`;
    const first = await client.chat.completions.create(
      { model: "eliza", messages: [{ role: "user", content: "hello" }] },
      { headers: { "X-Session-Id": session } },
    );
    const second = await fetch(`${rig.router.url}/v1/chat/completions`, {
      method: "POST",
      headers: { "x-session-id": session },
      body: JSON.stringify({
        model: "eliza",
        messages: [
          { role: "user", content: "hello" },
          { role: "assistant", content: "hi" },
          { role: "user", content: "play some jazz" },
        ],
      }),
    });
    const body = (await second.json()) as { a2a: { contextId: string } };
    expect((first as unknown as { a2a: { contextId: string } }).a2a.contextId).toBe(session);
    expect(body.a2a.contextId).toBe(session);
    expect(second.headers.get("x-session-id")).toBe(session);
    const transcript = (await (await fetch(`${rig.router.url}/api/conversations/${session}/messages`)).json()) as {
      messages: Array<{ role: string; text: string }>;
    };
    expect(transcript.messages.filter((m) => m.role === "user").map((m) => m.text)).toEqual(["hello", "play some jazz"]);
  });

  test("a session whose task waits for input continues that task with the next message", async () => {
    const ask = await client.chat.completions.create({ model: "shouter", messages: [{ role: "user", content: "ask" }] });
    expect(ask.choices[0]!.message.content).toBe("which one?");
    // The conversation goes on (its earlier messages are the one answered): its session, so its waiting task.
    const next = await client.chat.completions.create({
      model: "shouter",
      messages: [
        { role: "user", content: "ask" },
        { role: "assistant", content: "which one?" },
        { role: "user", content: "the red one" },
      ],
    });
    expect(next.choices[0]!.message.content).toBe("you said: the red one");
    expect(next.id).toBe(ask.id);
  });
});

describe("API keys", () => {
  test("a bad key is 401 in OpenAI's shape; a good one works", async () => {
    const router = await startRouter({ host: "127.0.0.1", port: 0, store: "memory", eliza: false, config: { apiKeys: ["k-good"] } });
    try {
      const bad = new OpenAI({ baseURL: `${router.url}/v1`, apiKey: "k-bad", maxRetries: 0 });
      const err = await bad.models.list().catch((e: unknown) => e);
      expect(err).toBeInstanceOf(AuthenticationError);
      expect(err).toMatchObject({ status: 401, type: "authentication_error", code: "invalid_api_key" });
      const good = new OpenAI({ baseURL: `${router.url}/v1`, apiKey: "k-good", maxRetries: 0 });
      const reply = await good.chat.completions.create({ model: "echo", messages: [{ role: "user", content: "ok" }] });
      expect(reply.choices[0]!.message.content).toBe("ok");
    } finally {
      await router.close();
    }
  });
});
