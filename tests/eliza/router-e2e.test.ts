/**
 * Through the router: a client streams a turn from `eliza` (backed by the fake OpenAI server) over
 * JSON-RPC + SSE, sees token appends, replace snapshots in order and the final text; tasks/get carries
 * actionCallbackHistory; GET /api/conversations/{sessionId}/messages gives the reloaded transcript.
 */
import { afterAll, beforeAll, describe, expect, test } from "@jest/globals";
import { randomUUID } from "node:crypto";
import { createParser } from "eventsource-parser";
import { createElizaAgent } from "../../agents/eliza/index.js";
import type { Character } from "../../agents/eliza/types.js";
import { startRouter, type RunningRouter } from "../../router/index.js";
import { MemoryStore } from "../../router/store/memory-store.js";
import { musicTurn, startFakeOpenAi, type FakeOpenAi } from "./fake-openai-server.js";

const character: Character = { name: "Routed", system: "You are Routed.", plugins: ["example"], settings: { MUSIC_PROGRESS_DELAY_MS: 0 } };

let model: FakeOpenAi;
let router: RunningRouter;

beforeAll(async () => {
  model = await startFakeOpenAi(musicTurn);
  const store = new MemoryStore();
  const eliza = await createElizaAgent({ store, character, env: { OPENAI_BASE_URL: model.url, OPENAI_API_KEY: "k" } });
  router = await startRouter({
    port: 0,
    store,
    hostedAgents: [eliza],
    conversations: (sessionId) => eliza.readConversation(sessionId),
    config: {},
  });
});

afterAll(async () => {
  await router?.close();
  await model?.close();
});

interface RpcEvent {
  result: {
    kind: string;
    taskId: string;
    contextId: string;
    final?: boolean;
    append?: boolean;
    status?: { state: string; message?: { parts: Array<{ text?: string }> } };
    artifact?: { parts: Array<{ text?: string }> };
    metadata?: Record<string, unknown>;
  };
}

async function stream(text: string, contextId: string): Promise<RpcEvent[]> {
  const res = await fetch(`${router.url}/`, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "text/event-stream" },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "message/stream",
      params: {
        message: { kind: "message", role: "user", messageId: randomUUID(), contextId, parts: [{ kind: "text", text }] },
        metadata: { agent: "eliza" },
      },
    }),
  });
  expect(res.headers.get("content-type")).toContain("text/event-stream");
  const events: RpcEvent[] = [];
  const parser = createParser({ onEvent: (e) => events.push(JSON.parse(e.data) as RpcEvent) });
  const decoder = new TextDecoder();
  for await (const bytes of res.body as unknown as AsyncIterable<Uint8Array>) parser.feed(decoder.decode(bytes, { stream: true }));
  return events;
}

describe("eliza through the router", () => {
  test("stream, tasks/get and the reloaded conversation", async () => {
    const contextId = randomUUID();
    const events = await stream("play track", contextId);
    const results = events.map((e) => e.result);

    const tokens = results.filter((r) => r.kind === "artifact-update");
    expect(tokens.map((r) => [r.artifact?.parts[0].text, r.append])).toEqual([
      ["Sure! ", false],
      ["Let me play that.", true],
    ]);
    const statuses = results.filter((r) => r.kind === "status-update");
    const working = statuses.filter((r) => r.status?.state === "working" && r.metadata?.fullText !== undefined);
    expect(working.map((r) => r.status?.message?.parts[0].text)).toEqual([
      "Sure! Let me play that.\n\n🔍 Looking up track...",
      "Sure! Let me play that.\n\n🔍 Searching for track...",
      "Sure! Let me play that.\n\n✨ Setting up playback...",
      "Sure! Let me play that.\n\nNow playing: **Track**",
    ]);
    expect(working.every((r) => r.metadata?.merge === "replace")).toBe(true);
    const final = results.at(-1)!;
    expect(final.final).toBe(true);
    expect(final.status?.state).toBe("completed");
    expect(final.status?.message?.parts[0].text).toBe("Sure! Let me play that.\n\nNow playing: **Track**");

    const got = await fetch(`${router.url}/`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tasks/get", params: { id: final.taskId } }),
    }).then((r) => r.json() as Promise<{ result: { metadata?: Record<string, unknown> } }>);
    expect(got.result.metadata?.actionCallbackHistory).toEqual([
      "🔍 Looking up track...",
      "🔍 Searching for track...",
      "✨ Setting up playback...",
      "Now playing: **Track**",
    ]);

    const transcript = (await fetch(`${router.url}/api/conversations/${final.contextId}/messages`).then((r) => r.json())) as {
      messages: Array<{ role: string; text: string }>;
    };
    expect(transcript.messages.map((m) => [m.role, m.text])).toEqual([
      ["user", "play track"],
      ["assistant", "🔍 Looking up track...\n🔍 Searching for track...\n✨ Setting up playback...\n\nNow playing: **Track**"],
    ]);
  });
});
