/**
 * CONTRACT 14 on `/api/chat`: Eliza's flight booking through the `ai` package's own DefaultChatTransport. The
 * turn that lacks the origin ends with the question as the answer and a "needs your input" status; the next
 * message of the same chat continues the same task and books the flight.
 */
import { afterAll, beforeAll, expect, test } from "@jest/globals";
import { DefaultChatTransport, readUIMessageStream, type UIMessage, type UIMessageChunk } from "ai";
import { startChatRig, uiText, type ChatRig } from "./helpers.js";

let rig: ChatRig;

beforeAll(async () => {
  rig = await startChatRig();
});

afterAll(async () => {
  await rig.close();
});

type StatusPart = { type: "data-status"; data: { state: string; text: string; taskId: string } };

/** One turn through the transport, read as useChat reads it: the chunks and the assistant message. */
async function turn(transport: DefaultChatTransport<UIMessage>, chatId: string, text: string) {
  const stream = await transport.sendMessages({
    chatId,
    messages: [{ id: crypto.randomUUID(), role: "user", parts: [{ type: "text", text }] }],
    trigger: "submit-message",
    messageId: undefined,
    abortSignal: undefined,
  });
  const chunks: UIMessageChunk[] = [];
  const tapped = stream.pipeThrough(
    new TransformStream<UIMessageChunk, UIMessageChunk>({
      transform(chunk, controller) {
        chunks.push(chunk);
        controller.enqueue(chunk);
      },
    }),
  );
  let message: UIMessage | undefined;
  for await (const m of readUIMessageStream({ stream: tapped })) message = m;
  const status = message!.parts.filter((p) => p.type === "data-status") as StatusPart[];
  expect(status).toHaveLength(1);
  return { chunks, message: message!, status: status[0]!.data, metadata: message!.metadata as Record<string, unknown> };
}

test("Eliza asks for the origin (the question is the answer, status needs your input); the next message books the flight on the same task", async () => {
  const transport = new DefaultChatTransport<UIMessage>({ api: `${rig.router.url}/api/chat`, body: { agent: "eliza" } });
  const chatId = crypto.randomUUID();

  const asked = await turn(transport, chatId, "book a flight to Paris tomorrow");
  expect(asked.status).toMatchObject({ state: "input-required", text: "needs your input" });
  expect(asked.metadata).toMatchObject({ state: "input-required", agent: "eliza", contextId: chatId });
  expect(uiText(asked.message).last).toContain("departure city");
  expect(asked.chunks.at(-1)).toEqual({ type: "finish", finishReason: "stop", messageMetadata: { state: "input-required" } });

  const booked = await turn(transport, chatId, "from London");
  expect(booked.metadata.taskId).toBe(asked.metadata.taskId);
  expect(booked.metadata.state).toBeUndefined();
  expect(booked.status.state).toBe("completed");
  const answer = uiText(booked.message).last;
  expect(answer).toContain("Booked");
  expect(answer).toContain("from London to Paris");
  // Nothing waits now: the chat's next message starts a new task.
  const next = await turn(transport, chatId, "hello");
  expect(next.metadata.taskId).not.toBe(asked.metadata.taskId);
});
