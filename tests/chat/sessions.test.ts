/**
 * A conversation is not a user (CONTRACT 14), through the `openai` client: on /v1/chat/completions the session
 * is `X-Session-Id`, else the conversation's own (a request whose earlier messages are a conversation the router
 * answered goes on in its session; none: a new one); `user` only labels. And the answer is never reasoning.
 */
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, test } from "@jest/globals";
import OpenAI from "openai";
import type { ChatCompletionMessageParam } from "openai/resources/chat/completions";
import { startChatRig, type ChatRig } from "./helpers.js";

let rig: ChatRig;
let client: OpenAI;

beforeAll(async () => {
  rig = await startChatRig();
  client = new OpenAI({ baseURL: `${rig.router.url}/v1`, apiKey: "unused" });
});

afterAll(async () => {
  await rig.close();
});

/** One non-stream turn: its answer and session. */
async function ask(model: string, messages: ChatCompletionMessageParam[], opts: { user?: string; session?: string } = {}) {
  const reply = await client.chat.completions.create(
    { model, messages, ...(opts.user && { user: opts.user }) },
    opts.session ? { headers: { "X-Session-Id": opts.session } } : {},
  );
  const message = reply.choices[0]!.message as { content: string; reasoning_content?: string };
  return { answer: message.content, reasoning: message.reasoning_content, session: (reply as unknown as { a2a: { contextId: string } }).a2a.contextId };
}

/** One streamed turn: the content as sent, every reasoning delta, the session (the X-Session-Id response header). */
async function streamed(model: string, messages: ChatCompletionMessageParam[]) {
  const { data, response } = await client.chat.completions.create({ model, messages, stream: true }).withResponse();
  let content = "";
  const reasoning: string[] = [];
  for await (const chunk of data) {
    const delta = chunk.choices[0]?.delta as { content?: string; reasoning_content?: string } | undefined;
    if (delta?.content) content += delta.content;
    if (delta?.reasoning_content) reasoning.push(delta.reasoning_content);
  }
  return { content, reasoning, session: response.headers.get("x-session-id")! };
}

/** The user messages Eliza holds for a session. */
async function userLines(session: string): Promise<string[]> {
  const res = await fetch(`${rig.router.url}/api/conversations/${session}/messages`);
  const body = (await res.json()) as { messages: Array<{ role: string; text: string }> };
  return body.messages.filter((m) => m.role === "user").map((m) => m.text);
}

describe("the session of a chat completion", () => {
  test("two conversations of one user have separate Eliza sessions; each goes on in its own", async () => {
    const user = `u-${randomUUID()}`;
    const a1 = await ask("eliza", [{ role: "user", content: "hello" }], { user });
    const b1 = await ask("eliza", [{ role: "user", content: "play some jazz" }], { user });
    expect(a1.session).not.toBe(b1.session);
    const a2 = await ask(
      "eliza",
      [
        { role: "user", content: "hello" },
        { role: "assistant", content: a1.answer },
        { role: "user", content: "how are you" },
      ],
      { user },
    );
    expect(a2.session).toBe(a1.session);
    expect(await userLines(a1.session)).toEqual(["hello", "how are you"]);
    expect(await userLines(b1.session)).toEqual(["play some jazz"]);
  });

  test("a streamed conversation goes on in its session; system messages do not count; an unknown history is a new session", async () => {
    const system: ChatCompletionMessageParam = { role: "system", content: "be brief" };
    const first = await streamed("echo", [system, { role: "user", content: "one" }]);
    const second = await streamed("echo", [
      system,
      { role: "user", content: "one" },
      { role: "assistant", content: first.content },
      { role: "user", content: "two" },
    ]);
    expect(second.session).toBe(first.session);
    // The same conversation without its system message is still that conversation.
    const third = await ask("echo", [
      { role: "user", content: "one" },
      { role: "assistant", content: first.content },
      { role: "user", content: "two" },
      { role: "assistant", content: second.content },
      { role: "user", content: "three" },
    ]);
    expect(third.session).toBe(first.session);
    // A system message alone before the user's is no earlier conversation: a new session.
    expect((await ask("echo", [system, { role: "user", content: "one" }])).session).not.toBe(first.session);
    // A history the router did not answer (another answer) is not that conversation.
    const forged = await ask("echo", [
      { role: "user", content: "one" },
      { role: "assistant", content: "something else" },
      { role: "user", content: "two" },
    ]);
    expect(forged.session).not.toBe(first.session);
  });

  test("X-Session-Id wins over the conversation", async () => {
    const first = await ask("echo", [{ role: "user", content: "hi" }]);
    const chosen = `s-${randomUUID()}`;
    const next = await ask(
      "echo",
      [
        { role: "user", content: "hi" },
        { role: "assistant", content: first.answer },
        { role: "user", content: "again" },
      ],
      { session: chosen },
    );
    expect(next.session).toBe(chosen);
  });
});

describe("reasoning_content", () => {
  test("never holds the answer: echo says it in a working status first, streamed and not", async () => {
    const reply = await ask("echo", [{ role: "user", content: "hello" }]);
    expect(reply.answer).toBe("hello");
    expect(reply.reasoning ?? "").not.toContain("hello");
    const s = await streamed("echo", [{ role: "user", content: "hello" }]);
    expect(s.content).toBe("hello");
    expect(s.reasoning.join("")).not.toContain("hello");
  });

  test("progress that is not the answer is still reasoning", async () => {
    const reply = await ask("shouter", [{ role: "user", content: "hello" }]);
    expect(reply.reasoning).toBe("working on: hello\nshout: HELLO");
  });
});
