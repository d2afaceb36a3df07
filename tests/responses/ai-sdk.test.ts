/**
 * CONTRACT 15 with the AI SDK's default OpenAI provider, unchanged: `createOpenAI({baseURL, apiKey})`, whose
 * `openai("<agent>")` speaks the Responses API. generateText and streamText against echo, eliza (asking back,
 * then continued through `previousResponseId`), a hub agent with progress (reasoning), a failing agent.
 */
import { afterAll, beforeAll, describe, expect, test } from "@jest/globals";
import { createOpenAI, type OpenAIProvider } from "@ai-sdk/openai";
import { generateText, streamText } from "ai";
import { startChatRig, type ChatRig } from "../chat/helpers.js";
import { QUESTION, expectBooked } from "./helpers.js";

let rig: ChatRig;
let openai: OpenAIProvider;

beforeAll(async () => {
  rig = await startChatRig();
  openai = createOpenAI({ baseURL: `${rig.router.url}/v1`, apiKey: "unused" });
});

afterAll(async () => {
  await rig.close();
});

describe("@ai-sdk/openai, default provider (Responses API)", () => {
  test("generateText and streamText against echo", async () => {
    const generated = await generateText({ model: openai("echo"), prompt: "hello there", maxRetries: 0 });
    expect(generated.text).toBe("hello there");
    expect(generated.finishReason).toBe("stop");
    expect(generated.response.id).toMatch(/^resp_/);
    const streamed = streamText({ model: openai("echo"), prompt: "streaming", maxRetries: 0 });
    expect(await streamed.text).toBe("streaming");
    expect(await streamed.finishReason).toBe("stop");
  });

  test("eliza: the question as the answer, then previousResponseId books the flight", async () => {
    const first = await generateText({ model: openai("eliza"), prompt: "book a flight to Paris tomorrow", maxRetries: 0 });
    expect(first.text).toContain(QUESTION);
    const second = await generateText({
      model: openai("eliza"),
      prompt: "from London",
      providerOptions: { openai: { previousResponseId: first.response.id } },
      maxRetries: 0,
    });
    expectBooked(second.text);
  });

  test("a hub agent: progress as reasoning, the answer as text, streamed", async () => {
    rig.stepped.reset();
    rig.stepped.release("step-1");
    rig.stepped.release("step-2");
    const streamed = streamText({ model: openai("stepper"), prompt: "world", maxRetries: 0 });
    expect(await streamed.text).toBe("Hello world!");
    const reasoning = await streamed.reasoning;
    expect(reasoning.map((r) => ("text" in r ? r.text : ""))).toEqual(["Looking things up", "Writing the answer"]);
  });

  test("a failing agent: generateText and streamText report the agent's error", async () => {
    rig.stepped.reset();
    const err = await generateText({ model: openai("stepper"), prompt: "fail", maxRetries: 0 }).catch((e: unknown) => e);
    expect(String((err as Error).message)).toContain("the tool broke");
    const errors: unknown[] = [];
    const streamed = streamText({ model: openai("stepper"), prompt: "fail", maxRetries: 0, onError: ({ error }) => void errors.push(error) });
    await streamed.consumeStream();
    expect(await streamed.finishReason).toBe("error");
    expect(errors.map((e) => String((e as Error).message ?? e)).join(" ")).toContain("the tool broke");
  });
});
