import { afterAll, beforeAll, describe, expect, test } from "@jest/globals";
import { randomUUID } from "node:crypto";
import { connectAgent } from "../../agents/sdk/index.js";
import { createReplyReader, type ReplyChange, type ReplyEvent } from "../../router/core/reply.js";
import type { RunningRouter } from "../../router/index.js";
import { testRouter } from "../helpers/router.js";
import { openStream, rpc, type Json } from "../helpers/rpc.js";
import { quietLogger } from "../interop/helpers.js";
import { SdkAgent } from "../interop/sdk-agent.js";

/**
 * One agent-side suite run over every way an agent is reached (hosted in the router, a hub agent written
 * with the SDK, an upstream @a2a-js/sdk server): whatever the agent, every status message carries a
 * `textKind` (CONTRACT 9), and a renderer that follows it ends with the turn's answer (the final status
 * text) and never shows progress inside the answer.
 */

interface AgentCase {
  /** The agent id the router knows it by. */
  agent: string;
  /** What to send it. */
  text: string;
  /** Status texts that are progress: none may appear in what the renderer shows as the answer. */
  progress: string[];
  /** The textKind some status texts must carry, as the agent edge decides it. */
  kinds: Record<string, "delta" | "snapshot" | "progress">;
}

let router: RunningRouter;
let upstream: SdkAgent;
let hub: ReturnType<typeof connectAgent>;

beforeAll(async () => {
  upstream = await new SdkAgent({ streaming: true }).start();
  router = await testRouter({ config: { agents: [{ id: "upstream", url: upstream.url }] } });
  hub = connectAgent({ url: `${router.url}/hub`, name: "writer", reconnect: false, logger: quietLogger });
  hub.skill({ name: "write", description: "looks something up, then writes the answer in chunks" }, async function* (_text, ctx) {
    await ctx.status("looking it up");
    yield "Hel";
    await ctx.status("still writing");
    yield "lo";
  });
  await hub.ready;
});

afterAll(async () => {
  await hub.close();
  await router.close();
  await upstream.stop();
});

/** A v0.3 stream's results as the reply reader's events (the internal shape, renamed). */
function toReplyEvent(result: Json): ReplyEvent {
  if (result.kind === "status-update") return { kind: "status", status: result.status, final: result.final, metadata: result.metadata };
  return { kind: "artifact", artifact: result.artifact, append: result.append, lastChunk: result.lastChunk, metadata: result.metadata };
}

async function streamTurn(agent: string, text: string): Promise<Json[]> {
  const message = { kind: "message", messageId: randomUUID(), role: "user", parts: [{ kind: "text", text }] };
  const stream = await openStream(router.url, "message/stream", { message }, { path: `/agents/${agent}` });
  return (await stream.all()).map((e) => e.data.result);
}

function runAgentSuite(name: string, make: () => AgentCase): void {
  describe(`agent side: ${name}`, () => {
    let results: Json[];
    let c: AgentCase;
    beforeAll(async () => {
      c = make();
      results = await streamTurn(c.agent, c.text);
    });

    test("every status update with a message names its textKind; the final one is a snapshot", () => {
      const withText = results.filter((r) => r.kind === "status-update" && r.status.message);
      expect(withText.length).toBeGreaterThan(0);
      for (const r of withText) expect(["delta", "snapshot", "progress"]).toContain(r.metadata?.textKind);
      const final = results.at(-1)!;
      expect(final.final).toBe(true);
      if (final.status.message) expect(final.metadata.textKind).toBe("snapshot");
      const text = (r: Json) => (r.status.message.parts as Json[]).map((p) => p.text ?? "").join("");
      for (const [t, kind] of Object.entries(c.kinds)) {
        const carrying = withText.filter((r) => text(r) === t);
        expect(carrying.length).toBeGreaterThan(0);
        for (const r of carrying) expect(`${t}: ${r.metadata.textKind}`).toBe(`${t}: ${kind}`);
      }
    });

    test("a renderer that follows textKind ends with the turn's answer and never shows progress in it", async () => {
      const reader = createReplyReader();
      const changes: ReplyChange[] = results.flatMap((r) => reader.feed(toReplyEvent(r)));
      const taskId = results[0]!.taskId as string;
      const task = (await rpc(router.url, "tasks/get", { id: taskId }, { path: `/agents/${c.agent}` })).result as Json;
      const finalText = (task.status.message?.parts ?? []).map((p: Json) => p.text ?? "").join("");
      expect(reader.ended).toBe(true);
      expect(reader.answer).toBe(finalText);
      let shown = "";
      for (const ch of changes) {
        if (ch.type === "answer") shown += ch.delta;
        if (ch.type === "answer-reset") shown = ch.text;
        for (const p of c.progress) expect(shown).not.toContain(p);
      }
      expect(shown).toBe(finalText);
      const statusLines = changes.filter((ch) => ch.type === "status").map((ch) => (ch as { text: string }).text);
      for (const p of c.progress) expect(statusLines).toContain(p);
    });
  });
}

runAgentSuite("hosted (eliza, an action with live callbacks)", () => ({
  agent: "eliza",
  text: "play some jazz",
  progress: [],
  kinds: { "Sure! Let me play that.\n\n🔍 Looking up track...": "snapshot", "Sure! Let me play that.\n\nNow playing: **Some Jazz**": "snapshot" },
}));
runAgentSuite("hub (SDK agent: ctx.status progress, yielded chunks)", () => ({
  agent: "writer",
  text: "go",
  progress: ["looking it up", "still writing"],
  kinds: { "looking it up": "progress", Hel: "delta", lo: "delta", Hello: "snapshot" },
}));
runAgentSuite("upstream (@a2a-js/sdk server: working messages, artifacts, a final message)", () => ({
  agent: "upstream",
  text: "hello",
  progress: ["working on: hello"],
  kinds: { "working on: hello": "progress", done: "snapshot" },
}));

test("the upstream answer is its final message, not its artifacts (CONTRACT 9)", async () => {
  const results = await streamTurn("upstream", "abc");
  const reader = createReplyReader();
  for (const r of results) reader.feed(toReplyEvent(r));
  expect(reader.answer).toBe("done");
});
