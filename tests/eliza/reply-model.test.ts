/**
 * The Eliza edge against the reply model of CONTRACT 9 (router/core/reply.ts, the reader every client uses):
 * every status with a message names its textKind, and a client that streamed the tokens as the answer reads
 * the final status as an extension of what it showed, never as a rewrite.
 */
import { describe, expect, test } from "@jest/globals";
import { randomUUID } from "node:crypto";
import { createElizaAgent } from "../../agents/eliza/index.js";
import { createReplyReader, type ReplyChange } from "../../router/core/reply.js";
import { TEXT_KIND_KEY, type AgentUpdate } from "../../router/core/model.js";
import { MemoryStore } from "../../router/store/memory-store.js";
import { artifactsOf, chunkText, collect, statusesOf, textOfStatus, turnContext } from "./helpers.js";

async function turn(text: string): Promise<AgentUpdate[]> {
  const agent = await createElizaAgent({ store: new MemoryStore(), env: {} });
  return collect(agent.execute(turnContext(text, randomUUID())));
}

function read(updates: AgentUpdate[]): { changes: ReplyChange[]; answer: string } {
  const reader = createReplyReader();
  const changes = updates.flatMap((u) => reader.feed(u));
  expect(reader.ended).toBe(true);
  return { changes, answer: reader.answer };
}

describe("textKind at the Eliza edge", () => {
  test("callback snapshots and the final status are snapshots; tokens are appended artifact chunks marked delta", async () => {
    const updates = await turn("Play some jazz");
    const statuses = statusesOf(updates);
    expect(statuses.length).toBe(5);
    for (const s of statuses) {
      expect(s.metadata?.[TEXT_KIND_KEY]).toBe("snapshot");
    }
    // The existing metadata stays beside it.
    expect(statuses[0].metadata).toMatchObject({ fullText: textOfStatus(statuses[0]), merge: "replace" });
    expect(statuses.at(-1)!.metadata).toMatchObject({ actionCallbackHistory: expect.any(Array) });
    const chunks = artifactsOf(updates);
    expect(chunks.slice(1).every((c) => c.append === true)).toBe(true);
    expect(chunks.every((c) => c.metadata?.[TEXT_KIND_KEY] === "delta")).toBe(true);
  });

  test("a failed turn's status is a snapshot too", async () => {
    const agent = await createElizaAgent({
      store: new MemoryStore(),
      env: {},
      model: { provider: "local", generate: async () => Promise.reject(new Error("model down")) },
    });
    const final = statusesOf(await collect(agent.execute(turnContext("hi", randomUUID())))).at(-1)!;
    expect(final.status.state).toBe("failed");
    expect(final.metadata?.[TEXT_KIND_KEY]).toBe("snapshot");
  });
});

describe("router/core/reply.ts reading an Eliza turn", () => {
  test("with a callback action: the answer is the final status text and the streamed tokens are its prefix", async () => {
    const updates = await turn("Play some jazz");
    const finalText = textOfStatus(statusesOf(updates).at(-1)!)!;
    const tokens = artifactsOf(updates).map(chunkText).join("");
    expect(tokens).toBe("Sure! Let me play that.");
    expect(finalText.startsWith(tokens)).toBe(true);

    const { changes, answer } = read(updates);
    expect(answer).toBe(finalText);
    expect(changes.at(-1)).toEqual({ type: "end", state: "completed", answer: finalText });
    // A chat client that showed the tokens as the answer only ever appends: no rewrite.
    expect(changes.some((c) => c.type === "answer-reset")).toBe(false);
    const deltas = changes.filter((c): c is Extract<ReplyChange, { type: "answer" }> => c.type === "answer").map((c) => c.delta);
    expect(deltas.join("")).toBe(finalText);
    // The tokens streamed into the answer as they came, before the action's callbacks finished it.
    expect(deltas.slice(0, -1).join("")).toBe(tokens);
    // The callbacks were status lines (snapshots of the reply) while the action ran.
    const lines = changes.filter((c) => c.type === "status");
    expect(lines.map((c) => c.type === "status" && c.textKind)).toEqual(["snapshot", "snapshot", "snapshot", "snapshot"]);
  });

  test("without an action: the answer is the streamed reply, unchanged by the final status", async () => {
    const updates = await turn("I feel tired today");
    const tokens = artifactsOf(updates).map(chunkText).join("");
    const finalText = textOfStatus(statusesOf(updates).at(-1)!);
    expect(finalText).toBe(tokens);
    const { changes, answer } = read(updates);
    expect(answer).toBe(tokens);
    expect(changes.some((c) => c.type === "answer-reset")).toBe(false);
  });
});
