import { describe, expect, test } from "@jest/globals";
import { VisibleReply } from "../../agents/eliza/visible-reply.js";
import { rebuildAssistantText, toTranscript } from "../../agents/eliza/transcript.js";
import type { MemoryRecord } from "../../router/core/store.js";

/** The music player's status sequence (as elizaOS's music-player plugin shows it), exactly. */
const MUSIC_CALLBACKS = ["🔍 Looking up track...", "🔍 Searching for track...", "✨ Setting up playback...", "Now playing: **Track**"];

describe("callback merge semantics (docs/contract.md section 7)", () => {
  test("the music statuses replace each other after the preserved LLM prefix", () => {
    const reply = new VisibleReply();
    for (const token of ["Sure! ", "Let me ", "play that."]) reply.appendText(token);
    expect(reply.text).toBe("Sure! Let me play that.");
    const snapshots = MUSIC_CALLBACKS.map((t) => reply.callback(t));
    expect(snapshots).toEqual([
      { fullText: "Sure! Let me play that.\n\n🔍 Looking up track...", merge: "replace" },
      { fullText: "Sure! Let me play that.\n\n🔍 Searching for track...", merge: "replace" },
      { fullText: "Sure! Let me play that.\n\n✨ Setting up playback...", merge: "replace" },
      { fullText: "Sure! Let me play that.\n\nNow playing: **Track**", merge: "replace" },
    ]);
    // The statuses must not pile up (the concatenation bug).
    expect(snapshots.some((s) => s.fullText.includes("🔍 Looking up track...🔍 Searching for track..."))).toBe(false);
    expect(reply.actionCallbackHistory).toEqual(MUSIC_CALLBACKS);
    expect(reply.callbackText).toBe("Now playing: **Track**");
    expect(reply.replyText).toBe("Sure! Let me play that.");
  });

  test("with no text before the first callback, the visible reply is just the latest callback", () => {
    const reply = new VisibleReply();
    expect(reply.callback("🔍 Looking up track...").fullText).toBe("🔍 Looking up track...");
    expect(reply.callback("Now playing: **Track**").fullText).toBe("Now playing: **Track**");
  });

  test('merge:"append" extends the callback segment instead of replacing it', () => {
    const reply = new VisibleReply();
    reply.appendText("Working on it.");
    reply.callback("Section 1 complete\n");
    expect(reply.callback("Section 2 complete\n", "append")).toEqual({
      fullText: "Working on it.\n\nSection 1 complete\nSection 2 complete\n",
      merge: "append",
    });
    expect(reply.callback("Report ready", "replace").fullText).toBe("Working on it.\n\nReport ready");
  });

  test("tokens after the first callback extend the segment; the snapshot is taken once", () => {
    const reply = new VisibleReply();
    reply.appendText("A");
    reply.callback("status");
    reply.appendText(" more");
    expect(reply.text).toBe("A\n\nstatus more");
    reply.resetTokens(); // no effect once snapshotted
    expect(reply.text).toBe("A\n\nstatus more");
  });
});

describe("history replay: the read path", () => {
  test("the persisted content rebuilds to the status trail plus the final paragraph", () => {
    expect(rebuildAssistantText("Now playing: **Track**", MUSIC_CALLBACKS)).toBe(
      "🔍 Looking up track...\n🔍 Searching for track...\n✨ Setting up playback...\n\nNow playing: **Track**",
    );
  });

  test("only a trailing duplicate of the final text is dropped", () => {
    expect(rebuildAssistantText("done", ["a", "b"])).toBe("a\nb\n\ndone");
    expect(rebuildAssistantText("done", ["done"])).toBe("done");
    expect(rebuildAssistantText("done", ["done", "a"])).toBe("done\na\n\ndone");
    expect(rebuildAssistantText("plain", undefined)).toBe("plain");
    expect(rebuildAssistantText("plain", [])).toBe("plain");
  });

  test("toTranscript: oldest first, ISO times, history kept, silent turns left out", () => {
    const at = Date.parse("2025-01-02T03:04:05.000Z");
    const records: MemoryRecord[] = [
      { id: "1", roomId: "r", agentId: "eliza", role: "user", content: { text: "play a song" }, createdAt: at },
      { id: "2", roomId: "r", agentId: "eliza", role: "assistant", content: { text: "Sure! Let me play that." }, createdAt: at + 1 },
      {
        id: "3",
        roomId: "r",
        agentId: "eliza",
        role: "assistant",
        content: { text: "Now playing: **Track**", actionCallbackHistory: MUSIC_CALLBACKS },
        createdAt: at + 1,
      },
      { id: "4", roomId: "r", agentId: "eliza", role: "assistant", content: { thought: "ignore", actions: ["IGNORE"] }, createdAt: at + 2 },
    ];
    expect(toTranscript(records)).toEqual([
      { id: "1", role: "user", text: "play a song", createdAt: "2025-01-02T03:04:05.000Z" },
      { id: "2", role: "assistant", text: "Sure! Let me play that.", createdAt: "2025-01-02T03:04:05.001Z" },
      {
        id: "3",
        role: "assistant",
        text: "🔍 Looking up track...\n🔍 Searching for track...\n✨ Setting up playback...\n\nNow playing: **Track**",
        createdAt: "2025-01-02T03:04:05.001Z",
        actionCallbackHistory: MUSIC_CALLBACKS,
      },
    ]);
  });
});
