/**
 * The AI SDK face (CONTRACT 10): `POST /api/chat` read by the `ai` package's own parser and
 * `readUIMessageStream`, resume from the start of the running turn, and Stop.
 */
import { afterAll, beforeAll, describe, expect, test } from "@jest/globals";
import type { UIMessage, UIMessageChunk } from "ai";
import { DefaultChatTransport } from "ai";
import { MAX_ID_CHARS } from "../../router/service/index.js";
import { postChat, readUi, startChatRig, uiText, type ChatRig } from "./helpers.js";

let rig: ChatRig;

beforeAll(async () => {
  rig = await startChatRig();
});

afterAll(async () => {
  await rig.close();
});

function statusParts(message: UIMessage) {
  return message.parts.filter((p) => p.type === "data-status") as Array<{
    type: "data-status";
    id: string;
    data: { state: string; text: string; taskId: string };
  }>;
}

/** Asserts the protocol frame of a finished turn and returns its message. */
async function turn(agent: string | undefined, text: string, chatId = crypto.randomUUID()) {
  const res = await postChat(rig.router.url, { id: chatId, text, ...(agent !== undefined && { agent }) });
  expect(res.status).toBe(200);
  expect(res.headers.get("x-vercel-ai-ui-message-stream")).toBe("v1");
  expect(res.headers.get("content-type")).toMatch(/^text\/event-stream/);
  const read = await readUi(res);
  expect(read.chunks[0]).toMatchObject({ type: "start", messageMetadata: { contextId: chatId } });
  expect(read.chunks.at(-1)).toMatchObject({ type: "finish" });
  // Exactly one status part per task: useChat replaced it in place.
  expect(statusParts(read.message)).toHaveLength(1);
  return read;
}

describe("POST /api/chat", () => {
  test("echo (the body's agent): the answer as text", async () => {
    const { message, chunks } = await turn("echo", "hi there");
    expect(uiText(message).all).toBe("hi there");
    expect(chunks.at(-1)).toEqual({ type: "finish", finishReason: "stop" });
    expect(statusParts(message)[0]!.data.state).toBe("completed");
  });

  test("the default agent (eliza) with a callback action; X-Agent picks another", async () => {
    const { message } = await turn(undefined, "play some jazz");
    expect(uiText(message).all).toBe("Sure! Let me play that.\n\nNow playing: **Some Jazz**");
    expect(message.metadata).toMatchObject({ agent: "eliza" });
    const res = await postChat(rig.router.url, { id: crypto.randomUUID(), text: "via header" }, { headers: { "x-agent": "echo" } });
    expect(uiText((await readUi(res)).message).all).toBe("via header");
  });

  test("a hub agent: the status part is replaced in place, the answer is exact", async () => {
    rig.stepped.reset();
    const statuses: string[] = [];
    const res = await postChat(rig.router.url, { id: crypto.randomUUID(), text: "world", agent: "stepper" });
    const read = readUi(res, (c) => {
      if (c.type === "data-status") statuses.push((c.data as { text: string }).text);
    });
    await rig.stepped.reached("status-1");
    rig.stepped.release("step-1");
    await rig.stepped.reached("status-2");
    rig.stepped.release("step-2");
    const { message } = await read;
    expect(uiText(message).all).toBe("Hello world!");
    const [status] = statusParts(message);
    expect(status!.id).toBe(`status-${status!.data.taskId}`);
    expect(statuses.slice(0, 3)).toEqual(["", "Looking things up", "Writing the answer"]);
  });

  test("a hub agent's chunks are text deltas (needs hub chunks with textKind delta)", async () => {
    rig.stepped.reset();
    rig.stepped.release("step-1");
    rig.stepped.release("step-2");
    const res = await postChat(rig.router.url, { id: crypto.randomUUID(), text: "world", agent: "stepper" });
    const { chunks, message } = await readUi(res);
    expect(chunks.filter((c) => c.type === "text-delta").map((c) => (c as { delta: string }).delta)).toEqual(["Hello ", "world!"]);
    expect(statusParts(message)[0]!.data.text).toBe("Writing the answer");
  });

  test("an upstream A2A agent: progress in the status part; the final message is the last text part", async () => {
    const { message, chunks } = await turn("shouter", "hello");
    expect(uiText(message).last).toBe("done");
    expect(chunks.some((c) => c.type === "data-status" && (c.data as { text: string }).text === "working on: hello")).toBe(true);
    // The streamed artifact was not the answer after all: it is shown as an artifact too.
    const artifacts = message.parts.filter((p) => p.type === "data-artifact") as Array<{ data: { artifactId: string; parts: Array<{ text: string }> } }>;
    expect(artifacts.map((a) => a.data.parts.map((p) => p.text).join(""))).toEqual(["HELLO"]);
  });

  test("artifacts that are not the answer are data-artifact parts", async () => {
    const { message } = await turn("artist", "draw");
    expect(uiText(message).all).toBe("Here is your chart.");
    expect(message.parts.filter((p) => p.type === "data-artifact").map((p) => (p as { id?: string; data: unknown }).data)).toEqual([
      expect.objectContaining({ artifactId: "chart", name: "chart", parts: [{ kind: "data", data: { bars: [1, 2], title: "sales" } }] }),
      expect.objectContaining({ artifactId: "report", parts: [expect.objectContaining({ kind: "file" })] }),
    ]);
  });

  test("a failed turn: an error part, then finish", async () => {
    const res = await postChat(rig.router.url, { id: crypto.randomUUID(), text: "fail", agent: "stepper" });
    const { chunks, message, errors } = await readUi(res);
    expect(chunks.slice(-2)).toEqual([
      { type: "error", errorText: expect.stringContaining("the tool broke") },
      { type: "finish", finishReason: "error" },
    ]);
    expect(errors).toHaveLength(1);
    expect(statusParts(message)[0]!.data.state).toBe("failed");
  });

  test("refusals are HTTP errors: unknown agent 404, bad body 400", async () => {
    const unknown = await postChat(rig.router.url, { id: "x", text: "hi", agent: "nobody" });
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toMatchObject({ error: { reason: "unknown-agent" } });
    const bad = await fetch(`${rig.router.url}/api/chat`, { method: "POST", body: JSON.stringify({ messages: [] }) });
    expect(bad.status).toBe(400);
    // An agent of another type is a mistake, not "the default agent".
    const wrongType = await fetch(`${rig.router.url}/api/chat`, {
      method: "POST",
      body: JSON.stringify({ id: "x", messages: [{ id: "u1", role: "user", parts: [{ type: "text", text: "hi" }] }], agent: 5 }),
    });
    expect(wrongType.status).toBe(400);
    expect(await wrongType.json()).toMatchObject({
      error: { message: "Invalid request: agent must be a string (an agent id or name)", data: { field: "agent" } },
    });
    const longId = await postChat(rig.router.url, { id: "c".repeat(MAX_ID_CHARS + 1), text: "hi", agent: "echo" });
    expect(longId.status).toBe(400);
    expect(await longId.json()).toMatchObject({
      error: { message: `Invalid request: id (the chat id) is longer than ${MAX_ID_CHARS} characters`, data: { field: "id" } },
    });
    // At the limit it is a chat id like any other.
    expect((await postChat(rig.router.url, { id: "c".repeat(MAX_ID_CHARS), text: "hi", agent: "echo" })).status).toBe(200);
  });

  test("DefaultChatTransport works unchanged (send, then reconnect to an idle chat: null)", async () => {
    const transport = new DefaultChatTransport<UIMessage>({ api: `${rig.router.url}/api/chat`, body: { agent: "echo" } });
    const chatId = crypto.randomUUID();
    const stream = await transport.sendMessages({
      chatId,
      messages: [{ id: "u1", role: "user", parts: [{ type: "text", text: "through the transport" }] }],
      trigger: "submit-message",
      messageId: undefined,
      abortSignal: undefined,
    });
    const chunks: UIMessageChunk[] = [];
    for await (const c of stream as unknown as AsyncIterable<UIMessageChunk>) chunks.push(c);
    expect(
      chunks
        .filter((c) => c.type === "text-delta")
        .map((c) => (c as { delta: string }).delta)
        .join(""),
    ).toBe("through the transport");
    expect(await transport.reconnectToStream({ chatId })).toBeNull();
  });
});

describe("resume and Stop", () => {
  test("GET /api/chat/{id}/stream: 204 when idle; a running turn replays from its start; the client leaving does not cancel", async () => {
    rig.stepped.reset();
    const chatId = crypto.randomUUID();
    expect((await fetch(`${rig.router.url}/api/chat/${chatId}/stream`)).status).toBe(204);

    // The first reader goes away mid-turn: the turn goes on.
    const leaving = new AbortController();
    const first = await postChat(rig.router.url, { id: chatId, text: "again", agent: "stepper" }, { signal: leaving.signal });
    await rig.stepped.reached("status-1");
    leaving.abort();
    await first.body?.cancel().catch(() => {});

    const resumed = await fetch(`${rig.router.url}/api/chat/${chatId}/stream`);
    expect(resumed.status).toBe(200);
    expect(resumed.headers.get("x-vercel-ai-ui-message-stream")).toBe("v1");
    const statuses: string[] = [];
    const read = readUi(resumed, (c) => {
      if (c.type === "data-status") statuses.push((c.data as { text: string }).text);
    });
    rig.stepped.release("step-1");
    await rig.stepped.reached("status-2");
    rig.stepped.release("step-2");
    const { message, chunks } = await read;
    // From the start of the turn: the first progress line too, and the whole answer.
    expect(statuses).toContain("Looking things up");
    expect(uiText(message).all).toBe("Hello again!");
    expect(statusParts(message)).toHaveLength(1);
    expect(chunks[0]).toMatchObject({ type: "start" });
    expect((await fetch(`${rig.router.url}/api/chat/${chatId}/stream`)).status).toBe(204);
  });

  test("POST /api/chat/{id}/cancel stops the running turn; the stream ends canceled", async () => {
    rig.stepped.reset();
    const chatId = crypto.randomUUID();
    expect((await fetch(`${rig.router.url}/api/chat/${chatId}/cancel`, { method: "POST" })).status).toBe(204);
    const res = await postChat(rig.router.url, { id: chatId, text: "hang", agent: "stepper" });
    const read = readUi(res);
    await rig.stepped.reached("hanging");
    const cancel = await fetch(`${rig.router.url}/api/chat/${chatId}/cancel`, { method: "POST" });
    expect(cancel.status).toBe(200);
    expect(await cancel.json()).toMatchObject({ state: "canceled" });
    const { chunks, message } = await read;
    expect(chunks.at(-1)).toEqual({ type: "finish", finishReason: "error" });
    expect(statusParts(message)[0]!.data.state).toBe("canceled");
    expect(uiText(message).all).toBe("");
  });
});
