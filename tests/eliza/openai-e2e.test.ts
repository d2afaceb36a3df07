/**
 * The agent's execute() against a real loopback HTTP server speaking OpenAI chat-completions streaming:
 * token appends, replace snapshots in order, the final text, the transcript, and failures that end the
 * turn instead of hanging it.
 */
import { afterEach, describe, expect, test } from "@jest/globals";
import { randomUUID } from "node:crypto";
import { createElizaAgent, type ElizaAgent } from "../../agents/eliza/index.js";
import type { Character } from "../../agents/eliza/types.js";
import { MemoryStore } from "../../router/store/memory-store.js";
import { closedPort, startFakeOpenAi, type FakeAnswer, type FakeOpenAi } from "./fake-openai-server.js";
import { artifactsOf, chunkText, collect, statusesOf, textOfStatus, turnContext } from "./helpers.js";

const character: Character = {
  name: "Testy",
  bio: "A test character.",
  system: "You are Testy.",
  plugins: ["example"],
  settings: { MUSIC_PROGRESS_DELAY_MS: 0 },
};

const HEAD = (thought: string, actions: string) => `<response><thought>${thought}</thought><actions>${actions}</actions><providers></providers><text>`;

let server: FakeOpenAi | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function agentFor(answer: (n: number) => FakeAnswer, extra: { turnTimeoutMs?: number } = {}): Promise<ElizaAgent> {
  server = await startFakeOpenAi((_req, n) => answer(n));
  return createElizaAgent({
    store: new MemoryStore(),
    character,
    env: { OPENAI_BASE_URL: server.url, OPENAI_API_KEY: "sk-test", ELIZA_MODEL: "big-model", ELIZA_SMALL_MODEL: "small-model" },
    ...extra,
  });
}

describe("eliza over an OpenAI-compatible server", () => {
  test("a music turn: token appends, then replace snapshots in order, then the final text and history", async () => {
    const agent = await agentFor(() => ({
      kind: "stream",
      chunks: [
        HEAD("The user wants music", "REPLY,PLAY_MUSIC"),
        "Sure! ",
        "Let me ",
        "play that.",
        "</text><params><PLAY_MUSIC><query>blue in green</query></PLAY_MUSIC></params></response>",
      ],
    }));
    const contextId = randomUUID();
    const updates = await collect(agent.execute(turnContext("play blue in green", contextId)));

    // Tokens: the <text> content only, appended, before any status.
    const artifacts = artifactsOf(updates);
    // The reply is complete before the first callback: its last chunk says so.
    expect(artifacts.map((a) => [chunkText(a), a.append, a.lastChunk])).toEqual([
      ["Sure! ", false, false],
      ["Let me ", true, false],
      ["play that.", true, true],
    ]);
    expect(artifacts.every((a) => a.artifact.artifactId === "reply" && !chunkText(a).includes("<"))).toBe(true);
    expect(updates.findIndex((u) => u.kind === "status")).toBe(3);

    // Callbacks: snapshots of the whole visible reply, each replacing the last.
    const statuses = statusesOf(updates);
    const working = statuses.filter((s) => s.status.state === "working");
    expect(working.map(textOfStatus)).toEqual([
      "Sure! Let me play that.\n\n🔍 Looking up track...",
      "Sure! Let me play that.\n\n🔍 Searching for track...",
      "Sure! Let me play that.\n\n✨ Setting up playback...",
      "Sure! Let me play that.\n\nNow playing: **Blue In Green**",
    ]);
    expect(working.map((s) => s.metadata)).toEqual(working.map((s) => ({ fullText: textOfStatus(s), merge: "replace", textKind: "snapshot" })));

    // The end.
    const final = statuses[statuses.length - 1];
    expect(updates[updates.length - 1]).toBe(final);
    expect(final.final).toBe(true);
    expect(final.status.state).toBe("completed");
    expect(textOfStatus(final)).toBe("Sure! Let me play that.\n\nNow playing: **Blue In Green**");
    expect(final.metadata?.actionCallbackHistory).toEqual([
      "🔍 Looking up track...",
      "🔍 Searching for track...",
      "✨ Setting up playback...",
      "Now playing: **Blue In Green**",
    ]);
    expect(final.metadata?.actionResults).toEqual([
      { action: "REPLY", success: true, text: "Sure! Let me play that.", values: { lastReply: "Sure! Let me play that." } },
      {
        action: "PLAY_MUSIC",
        success: true,
        text: "Now playing: **Blue In Green**",
        values: { nowPlaying: "Blue In Green" },
        data: { track: { title: "Blue In Green", query: "blue in green" } },
      },
    ]);

    // The request: streaming, bearer key, large model, the character's system message, the template.
    const req = await server!.request(1);
    expect(req.method).toBe("POST");
    expect(req.url).toBe("/v1/chat/completions");
    expect(req.headers.authorization).toBe("Bearer sk-test");
    expect(req.body.stream).toBe(true);
    expect(req.body.model).toBe("big-model");
    expect(req.body.messages?.[0]).toEqual({ role: "system", content: "You are Testy." });
    expect(req.body.messages?.[1].role).toBe("user");
    expect(req.body.messages?.[1].content).toContain("Generate dialog and actions for the character Testy");
    expect(req.body.messages?.[1].content).toContain("PLAY_MUSIC");
    expect(req.body.messages?.[1].content).toContain("user: play blue in green");

    // Reloaded: the status trail, then the final text.
    const { messages } = await agent.readConversation(contextId);
    expect(messages.map((m) => [m.role, m.text])).toEqual([
      ["user", "play blue in green"],
      ["assistant", "🔍 Looking up track...\n🔍 Searching for track...\n✨ Setting up playback...\n\nNow playing: **Blue In Green**"],
    ]);
    expect(messages[1].actionCallbackHistory).toHaveLength(4);
  });

  test("a simple reply streams as tokens only; the last chunk says so; the next turn sees the history", async () => {
    const agent = await agentFor((n) => ({
      kind: "stream",
      chunks: [HEAD("chat", "REPLY"), n === 1 ? "Hello " : "Still ", n === 1 ? "there." : "here.", "</text></response>"],
    }));
    const contextId = randomUUID();
    const first = await collect(agent.execute(turnContext("hi", contextId)));
    expect(artifactsOf(first).map((a) => [chunkText(a), a.append, a.lastChunk])).toEqual([
      ["Hello ", false, false],
      ["there.", true, true],
    ]);
    expect(statusesOf(first).map((s) => [s.status.state, textOfStatus(s)])).toEqual([["completed", "Hello there."]]);
    expect(statusesOf(first)[0].metadata?.actionCallbackHistory).toEqual([]);

    await collect(agent.execute(turnContext("are you there?", contextId)));
    const second = await server!.request(2);
    expect(second.body.messages?.[1].content).toContain("user: hi\nTesty: Hello there.\nuser: are you there?");
  });

  test("an incomplete reply is asked again (up to 3 attempts); the restarted reply replaces the artifact", async () => {
    const agent = await agentFor((n) =>
      n === 1
        ? { kind: "stream", chunks: ["<response><text>Draft", "</text></response>"] }
        : n === 2
          ? { kind: "stream", chunks: ["no xml at all"] }
          : { kind: "stream", chunks: [HEAD("ok", "REPLY"), "Final ", "answer", "</text></response>"] },
    );
    const updates = await collect(agent.execute(turnContext("hello", randomUUID())));
    expect(server!.requests).toHaveLength(3);
    expect(artifactsOf(updates).map((a) => [chunkText(a), a.append])).toEqual([
      ["Draft", false],
      ["Final ", false],
      ["answer", true],
    ]);
    expect(textOfStatus(statusesOf(updates).at(-1)!)).toBe("Final answer");
  });

  test("three replies without XML fail the turn with a clear message", async () => {
    const agent = await agentFor(() => ({ kind: "stream", chunks: ["I would rather ", "not."] }));
    const updates = await collect(agent.execute(turnContext("hello", randomUUID())));
    const final = statusesOf(updates).at(-1)!;
    expect(final.status.state).toBe("failed");
    expect(textOfStatus(final)).toBe('the model\'s reply had no <response> XML after 3 attempts: "I would rather not."');
  });

  test("an invalid parameter fails that action: the user is told, the turn still completes", async () => {
    const agent = await agentFor(() => ({
      kind: "stream",
      chunks: [
        HEAD("book", "REPLY,BOOK_FLIGHT"),
        "Booking.",
        "</text><params><BOOK_FLIGHT><origin>SFO</origin><destination>JFK</destination>",
        "<departureDate>next tuesday</departureDate></BOOK_FLIGHT></params></response>",
      ],
    }));
    const updates = await collect(agent.execute(turnContext("book a flight", randomUUID())));
    const final = statusesOf(updates).at(-1)!;
    const told = 'Booking.\n\nBOOK_FLIGHT failed: parameter "departureDate" must match pattern "^\\d{4}-\\d{2}-\\d{2}$"';
    expect(final.status.state).toBe("completed");
    expect(textOfStatus(final)).toBe(told);
    expect(artifactsOf(updates).map((a) => [chunkText(a), a.lastChunk])).toEqual([["Booking.", true]]);
    expect(
      statusesOf(updates)
        .filter((s) => s.status.state === "working")
        .map((s) => [textOfStatus(s), s.metadata?.merge]),
    ).toEqual([[told, "replace"]]);
    expect(final.metadata?.actionResults).toContainEqual({
      action: "BOOK_FLIGHT",
      success: false,
      error: 'BOOK_FLIGHT: parameter "departureDate" must match pattern "^\\d{4}-\\d{2}-\\d{2}$"',
    });
  });

  test("valid parameters are coerced and reach the handler (callbacks replace)", async () => {
    const agent = await agentFor(() => ({
      kind: "stream",
      chunks: [
        HEAD("book", "BOOK_FLIGHT"),
        "</text><params><BOOK_FLIGHT><origin>SFO</origin><destination>JFK</destination><departureDate>2025-03-15</departureDate>",
        "<passengerCount>2</passengerCount></BOOK_FLIGHT></params></response>",
      ],
    }));
    const updates = await collect(agent.execute(turnContext("book it", randomUUID())));
    expect(artifactsOf(updates)).toEqual([]);
    const texts = statusesOf(updates).map(textOfStatus);
    expect(texts[0]).toBe("✈️ Looking for flights from SFO to JFK on 2025-03-15...");
    expect(texts[1]).toMatch(/^✅ Booked 2 seats from SFO to JFK on 2025-03-15\. Booking BK-[0-9A-F]{6}\.$/);
    expect(texts[2]).toBe(texts[1]);
    expect(statusesOf(updates).at(-1)!.metadata?.actionResults).toEqual([
      expect.objectContaining({ action: "BOOK_FLIGHT", success: true, data: expect.objectContaining({ passengerCount: 2 }) }),
    ]);
  });

  test("a 500 from the server fails the turn with the server's message", async () => {
    const agent = await agentFor(() => ({
      kind: "error",
      status: 500,
      body: JSON.stringify({ error: { message: "The model is overloaded", type: "server_error" } }),
    }));
    const updates = await collect(agent.execute(turnContext("hello", randomUUID())));
    expect(updates).toHaveLength(1);
    const final = statusesOf(updates)[0];
    expect(final.final).toBe(true);
    expect(final.status.state).toBe("failed");
    expect(textOfStatus(final)).toBe("model server answered 500 Internal Server Error: The model is overloaded");
    expect(final.metadata?.error).toBe(textOfStatus(final));
  });

  test("an error event inside the stream fails the turn with its message", async () => {
    const agent = await agentFor(() => ({
      kind: "stream",
      chunks: [HEAD("t", "REPLY"), "partial"],
      trailer: JSON.stringify({ error: { message: "context length exceeded" } }),
    }));
    const updates = await collect(agent.execute(turnContext("hello", randomUUID())));
    const final = statusesOf(updates).at(-1)!;
    expect(final.status.state).toBe("failed");
    expect(textOfStatus(final)).toBe("model server error: context length exceeded");
  });

  test("a server that ignores stream:true and answers JSON still works", async () => {
    const agent = await agentFor(() => ({ kind: "json", content: `${HEAD("t", "REPLY")}Plain JSON.</text></response>` }));
    const updates = await collect(agent.execute(turnContext("hello", randomUUID())));
    expect(textOfStatus(statusesOf(updates).at(-1)!)).toBe("Plain JSON.");
  });

  test("connection refused fails the turn, naming the URL and the cause", async () => {
    const port = await closedPort();
    const agent = await createElizaAgent({
      store: new MemoryStore(),
      character,
      env: { OPENAI_BASE_URL: `http://127.0.0.1:${port}/v1` },
    });
    const updates = await collect(agent.execute(turnContext("hello", randomUUID())));
    const final = statusesOf(updates)[0];
    expect(final.status.state).toBe("failed");
    expect(textOfStatus(final)).toBe(`model server unreachable at http://127.0.0.1:${port}/v1/chat/completions: connect ECONNREFUSED 127.0.0.1:${port}`);
  });

  test("a server that never answers fails the turn at its timeout", async () => {
    // Long enough for the request to reach the server on a loaded machine: its abort is checked below.
    const agent = await agentFor(() => ({ kind: "hang" }), { turnTimeoutMs: 1000 });
    const updates = await collect(agent.execute(turnContext("hello", randomUUID())));
    const final = statusesOf(updates)[0];
    expect(final.status.state).toBe("failed");
    expect(textOfStatus(final)).toBe("the turn timed out after 1000 ms");
    await server!.requests[0].closed; // the request was aborted, not left open
  });

  test("ctx.signal aborts the turn: the request is dropped and execute() ends without a status", async () => {
    const agent = await agentFor(() => ({ kind: "hang" }));
    const controller = new AbortController();
    const done = collect(agent.execute(turnContext("hello", randomUUID(), { signal: controller.signal })));
    const req = await server!.request(1);
    controller.abort(new Error("canceled by client"));
    expect(await done).toEqual([]);
    await req.closed;
  });
});
