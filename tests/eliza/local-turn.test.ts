/** Whole turns with the offline `local` model (what `npm start` runs) and with scripted test models. */
import { describe, expect, test } from "@jest/globals";
import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createElizaAgent } from "../../agents/eliza/index.js";
import type { TextModel } from "../../agents/eliza/models/text-model.js";
import type { Action, Character, GenerateTextParams, Plugin } from "../../agents/eliza/types.js";
import type { AgentUpdate } from "../../router/core/model.js";
import { MemoryStore } from "../../router/store/memory-store.js";
import { SqliteStore } from "../../router/store/sqlite-store.js";
import { artifactsOf, chunkText, collect, silentLogger, statusesOf, textOfStatus, turnContext } from "./helpers.js";

const finalOf = (updates: Awaited<ReturnType<typeof collect>>) => statusesOf(updates).at(-1)!;

/** A model that answers from a script and records prompts; `gate` can hold an answer back. */
class ScriptedModel implements TextModel {
  readonly provider = "local" as const;
  prompts: string[] = [];
  systems: Array<string | undefined> = [];
  constructor(
    private readonly answer: (prompt: string, n: number) => string,
    private readonly gate?: (n: number) => Promise<void>,
  ) {}
  async generate(_type: string, params: GenerateTextParams): Promise<string> {
    this.prompts.push(params.prompt);
    this.systems.push(params.system);
    const n = this.prompts.length;
    await this.gate?.(n);
    const out = this.answer(params.prompt, n);
    params.onStreamChunk?.(out);
    return out;
  }
}

const xml = (actions: string, text: string, params = "") =>
  `<response><thought>t</thought><actions>${actions}</actions><text>${text}</text>${params}</response>`;

function act(name: string, handler: Action["handler"], extra: Partial<Action> = {}): Action {
  return { name, description: `${name} action`, validate: async () => true, handler, ...extra };
}

const bare: Character = { name: "Bare" };

describe("the default agent with the local model", () => {
  test("its card: id eliza, hosted, streaming, chat first then the example actions", async () => {
    const agent = await createElizaAgent({ store: new MemoryStore(), env: {} });
    expect(agent.info).toMatchObject({ id: "eliza", name: "Eliza", transport: "hosted", streaming: true });
    expect(agent.info.skills.map((s) => s.id)).toEqual(["chat", "PLAY_MUSIC", "BOOK_FLIGHT"]);
    expect(agent.info.skills[2]).toMatchObject({ tags: ["travel"], examples: ["Book me a flight from SFO to JFK on 2025-03-15 for 2 passengers"] });
    expect(agent.isOnline()).toBe(true);
    expect(agent.runtime.model.provider).toBe("local");
  });

  test('"play some jazz": streamed reply, then the four replacing statuses, then the transcript', async () => {
    const agent = await createElizaAgent({ store: new MemoryStore(), env: {} });
    const contextId = randomUUID();
    const updates = await collect(agent.execute(turnContext("Play some jazz", contextId)));
    const tokens = artifactsOf(updates);
    expect(tokens.length).toBeGreaterThan(1);
    expect(tokens.map(chunkText).join("")).toBe("Sure! Let me play that.");
    expect(statusesOf(updates).map(textOfStatus)).toEqual([
      "Sure! Let me play that.\n\n🔍 Looking up track...",
      "Sure! Let me play that.\n\n🔍 Searching for track...",
      "Sure! Let me play that.\n\n✨ Setting up playback...",
      "Sure! Let me play that.\n\nNow playing: **Some Jazz**",
      "Sure! Let me play that.\n\nNow playing: **Some Jazz**",
    ]);
    expect((await agent.readConversation(contextId)).messages.map((m) => m.text)).toEqual([
      "Play some jazz",
      "🔍 Looking up track...\n🔍 Searching for track...\n✨ Setting up playback...\n\nNow playing: **Some Jazz**",
    ]);
  });

  test("a flight booking: parameters found in the sentence, coerced, validated", async () => {
    const agent = await createElizaAgent({ store: new MemoryStore(), env: {} });
    const updates = await collect(agent.execute(turnContext("Book a flight from SFO to JFK on 2025-03-15 for 2 passengers", randomUUID())));
    const final = finalOf(updates);
    expect(final.status.state).toBe("completed");
    expect(textOfStatus(final)).toMatch(/^I'll book that flight for you\.\n\n✅ Booked 2 seats from SFO to JFK on 2025-03-15\. Booking BK-/);
  });

  test("a booking with an invalid detail fails that action clearly, and the user is told", async () => {
    const agent = await createElizaAgent({ store: new MemoryStore(), env: {} });
    const contextId = randomUUID();
    const said = "book a flight from SFO to JFK on 2025-03-15 for 20 passengers";
    const updates = await collect(agent.execute(turnContext(said, contextId)));
    const final = finalOf(updates);
    const failure = 'BOOK_FLIGHT failed: parameter "passengerCount" must be <= 10';
    const told = `I'll book that flight for you.\n\n${failure}`;
    // Live, like a callback: a replacing snapshot of the whole reply; then the final text and history.
    expect(statusesOf(updates).map((s) => [s.status.state, textOfStatus(s), s.metadata?.merge])).toEqual([
      ["working", told, "replace"],
      ["completed", told, undefined],
    ]);
    expect(statusesOf(updates)[0].metadata?.fullText).toBe(told);
    expect(final.metadata?.actionCallbackHistory).toEqual([failure]);
    expect((await agent.readConversation(contextId)).messages.map((m) => m.text)).toEqual([said, failure]);
    expect(final.metadata?.actionResults).toContainEqual({
      action: "BOOK_FLIGHT",
      success: false,
      error: 'BOOK_FLIGHT: parameter "passengerCount" must be <= 10',
    });
  });

  test("a booking without the details asks for every missing one in one question (input-required)", async () => {
    const agent = await createElizaAgent({ store: new MemoryStore(), env: {} });
    const updates = await collect(agent.execute(turnContext("book a flight please", randomUUID())));
    const final = finalOf(updates);
    const question =
      "I need a few more details for BOOK_FLIGHT: what are the departure city or airport code, arrival city or airport code and departure date (YYYY-MM-DD)?";
    expect(final.status.state).toBe("input-required");
    expect(textOfStatus(final)).toBe(`I'll book that flight for you.\n\n${question}`);
    expect(final.metadata?.missingParameters).toEqual(["origin", "destination", "departureDate"]);
    expect(final.metadata?.actionResults).toContainEqual(
      expect.objectContaining({ action: "BOOK_FLIGHT", success: false, missingParameters: ["origin", "destination", "departureDate"] }),
    );
  });

  test("small talk gets a deterministic ELIZA answer; character examples and greetings answer in character", async () => {
    const agent = await createElizaAgent({ store: new MemoryStore(), env: {} });
    const say = async (text: string) => textOfStatus(finalOf(await collect(agent.execute(turnContext(text, randomUUID())))));
    const need = await say("I need a holiday");
    expect(["Why do you need a holiday?", "Would it really help you to get a holiday?"]).toContain(need);
    expect(await say("I need a holiday")).toBe(need);
    expect(await say("Who are you?")).toBe("I am Eliza, an agent hosted by this A2A router. I can chat, play music and book flights.");
    expect(await say("hello")).toBe("Hello, I am Eliza. What would you like to talk about?");
  });
});

describe("the pipeline", () => {
  test("shouldRespond runs for non-direct sources: STOP ends the turn silently, RESPOND answers", async () => {
    const agent = await createElizaAgent({ store: new MemoryStore(), env: {}, character: bare });
    const quiet = await collect(agent.execute(turnContext("please be quiet", randomUUID(), { metadata: { source: "discord" } })));
    expect(quiet).toHaveLength(1);
    expect(finalOf(quiet)).toMatchObject({ status: { state: "completed" }, metadata: { ignored: true } });
    expect(finalOf(quiet).status.message).toBeUndefined();
    const answered = finalOf(await collect(agent.execute(turnContext("hello", randomUUID(), { metadata: { source: "discord" } }))));
    expect(textOfStatus(answered)).toBe("Hello, I am Bare. What would you like to talk about?");
    // Direct (A2A) messages never ask.
    const direct = finalOf(await collect(agent.execute(turnContext("please be quiet", randomUUID()))));
    expect(direct.metadata?.ignored).toBeUndefined();
  });

  test("a newer message in the same room discards the stale reply before its actions run", async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let arrived!: () => void;
    const firstAsked = new Promise<void>((resolve) => (arrived = resolve));
    const ran: string[] = [];
    const model = new ScriptedModel(
      (prompt) => xml("REPLY,RECORD", prompt.includes("second") ? "second reply" : "first reply"),
      (n) => {
        if (n !== 1) return Promise.resolve();
        arrived();
        return held;
      },
    );
    const plugin: Plugin = { name: "p", actions: [act("RECORD", async (_r, m) => void ran.push(m.content.text ?? ""))] };
    const agent = await createElizaAgent({ store: new MemoryStore(), env: {}, character: bare, model, plugins: [plugin] });
    const room = randomUUID();
    const first = collect(agent.execute(turnContext("first", room)));
    await firstAsked;
    const second = await collect(agent.execute(turnContext("second", room)));
    release();
    const stale = await first;
    expect(finalOf(stale)).toMatchObject({ status: { state: "completed" }, metadata: { discarded: true, actionResults: [] } });
    expect(textOfStatus(finalOf(second))).toBe("second reply");
    expect(ran).toEqual(["second"]);
  });

  test("a throwing handler is a failed result; the turn goes on and completes", async () => {
    const model = new ScriptedModel(() => xml("REPLY,EXPLODE,AFTER", "ok"));
    const plugin: Plugin = {
      name: "p",
      actions: [
        act("EXPLODE", async () => {
          throw new Error("kaboom");
        }),
        act("AFTER", async (_r, _m, _s, _o, cb) => {
          await cb?.({ text: "after ran" });
          return { success: true };
        }),
      ],
    };
    const agent = await createElizaAgent({ store: new MemoryStore(), env: {}, character: bare, model, plugins: [plugin] });
    const updates = await collect(agent.execute(turnContext("go", randomUUID())));
    const final = finalOf(updates);
    expect(final.status.state).toBe("completed");
    // The failure is shown live (then replaced by the next callback) and kept in the history.
    expect(statusesOf(updates).map(textOfStatus)).toEqual(["ok\n\nEXPLODE failed: kaboom", "ok\n\nafter ran", "ok\n\nafter ran"]);
    expect(final.metadata?.actionCallbackHistory).toEqual(["EXPLODE failed: kaboom", "after ran"]);
    expect(textOfStatus(final)).toBe("ok\n\nafter ran");
    expect((final.metadata!.actionResults as Array<{ action: string; success: boolean }>).map((r) => [r.action, r.success])).toEqual([
      ["REPLY", true],
      ["EXPLODE", false],
      ["AFTER", true],
    ]);
  });

  test("validate() answering false is not a failure the user is told about", async () => {
    const model = new ScriptedModel(() => xml("REPLY,NOT_HERE", "ok"));
    const plugin: Plugin = { name: "p", actions: [act("NOT_HERE", async () => ({ success: true }), { validate: async () => false })] };
    const agent = await createElizaAgent({ store: new MemoryStore(), env: {}, character: bare, model, plugins: [plugin] });
    const updates = await collect(agent.execute(turnContext("go", randomUUID())));
    expect(statusesOf(updates).map((s) => [s.status.state, textOfStatus(s)])).toEqual([["completed", "ok"]]);
    expect(finalOf(updates).metadata?.actionCallbackHistory).toEqual([]);
  });

  test("an action that never returns fails the turn at its timeout instead of hanging it", async () => {
    const model = new ScriptedModel(() => xml("STUCK", ""));
    const plugin: Plugin = { name: "p", actions: [act("STUCK", () => new Promise(() => {}))] };
    const agent = await createElizaAgent({ store: new MemoryStore(), env: {}, character: bare, model, plugins: [plugin], turnTimeoutMs: 100 });
    const final = finalOf(await collect(agent.execute(turnContext("go", randomUUID()))));
    expect(final).toMatchObject({ final: true, status: { state: "failed" }, metadata: { error: "the turn timed out after 100 ms" } });
  });

  test('append callbacks and action streaming: merge "append" snapshots, onStreamChunk as tokens', async () => {
    const model = new ScriptedModel(() => xml("REPORT", ""));
    const plugin: Plugin = {
      name: "p",
      actions: [
        act("REPORT", async (_r, _m, _s, options, cb) => {
          await options?.onStreamChunk?.("Generating report...");
          await cb?.({ text: "Section 1 complete." });
          await cb?.({ text: " Section 2 complete.", merge: "append" });
          return { success: true };
        }),
      ],
    };
    const agent = await createElizaAgent({ store: new MemoryStore(), env: {}, character: bare, model, plugins: [plugin] });
    const updates = await collect(agent.execute(turnContext("report", randomUUID())));
    expect(artifactsOf(updates).map(chunkText)).toEqual(["Generating report..."]);
    expect(statusesOf(updates).map((s) => [textOfStatus(s), s.metadata?.merge])).toEqual([
      ["Generating report...\n\nSection 1 complete.", "replace"],
      ["Generating report...\n\nSection 1 complete. Section 2 complete.", "append"],
      ["Generating report...\n\nSection 1 complete. Section 2 complete.", undefined],
    ]);
  });

  test("templates: the character's override is used; a plugin's init can override it at start-up", async () => {
    const model = new ScriptedModel(() => xml("REPLY", "fine"));
    const character: Character = { name: "Tpl", system: "sys!", templates: { messageHandlerTemplate: "CUSTOM {{agentName}} :: {{messageText}}" } };
    const agent = await createElizaAgent({ store: new MemoryStore(), env: {}, character, model });
    await collect(agent.execute(turnContext("hey", randomUUID())));
    expect(model.prompts[0]).toBe("CUSTOM Tpl :: hey");
    expect(model.systems[0]).toBe("sys!");

    const model2 = new ScriptedModel(() => xml("REPLY", "fine"));
    const plugin: Plugin = {
      name: "tpl",
      init: (_config, runtime) => {
        runtime.character.templates = { ...runtime.character.templates, messageHandlerTemplate: "FROM PLUGIN {{actionNames}}" };
      },
    };
    const agent2 = await createElizaAgent({ store: new MemoryStore(), env: {}, character, model: model2, plugins: [plugin] });
    await collect(agent2.execute(turnContext("hey", randomUUID())));
    expect(model2.prompts[0]).toBe("FROM PLUGIN REPLY, IGNORE, NONE");
  });

  test("evaluators run after the response and may call back", async () => {
    const model = new ScriptedModel(() => xml("REPLY", "hi"));
    const seen: string[] = [];
    const plugin: Plugin = {
      name: "p",
      evaluators: [
        {
          name: "REFLECT",
          description: "d",
          validate: async () => true,
          handler: async (_r, m, _s, _o, cb, responses) => {
            seen.push(`${m.content.text} -> ${responses?.[0]?.content.text}`);
            await cb?.({ text: "(noted)" });
            return undefined;
          },
        },
      ],
    };
    const agent = await createElizaAgent({ store: new MemoryStore(), env: {}, character: bare, model, plugins: [plugin] });
    const final = finalOf(await collect(agent.execute(turnContext("hello", randomUUID()))));
    expect(seen).toEqual(["hello -> hi"]);
    expect(textOfStatus(final)).toBe("hi\n\n(noted)");
  });
});

/** Whether no reply chunk follows the one that said it was the last. */
function closedOnce(updates: AgentUpdate[]): boolean {
  const last = updates.findIndex((u) => u.kind === "artifact" && u.lastChunk === true);
  return last >= 0 && !updates.slice(last + 1).some((u) => u.kind === "artifact");
}

describe("the reply artifact's last chunk", () => {
  test.each([
    ["REPLY then an action", "REPLY,SLOW"],
    ["an action with the reply text, no REPLY", "SLOW"],
  ])("%s: lastChunk arrives once the reply is complete, while the action still works", async (_shape, actions) => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let released = false;
    const model = new ScriptedModel(() => xml(actions, "On it."));
    const plugin: Plugin = {
      name: "p",
      actions: [
        act("SLOW", async (_r, _m, _s, _o, cb) => {
          await gate;
          await cb?.({ text: "done" });
          return { success: true };
        }),
      ],
    };
    // The timeout only bounds a regression (the turn would fail instead of hanging).
    const agent = await createElizaAgent({ store: new MemoryStore(), env: {}, character: bare, model, plugins: [plugin], turnTimeoutMs: 5000 });
    const updates: AgentUpdate[] = [];
    let closedWhileWorking = false;
    for await (const u of agent.execute(turnContext("go", randomUUID()))) {
      updates.push(u);
      if (u.kind === "artifact" && u.lastChunk) {
        closedWhileWorking = !released;
        released = true;
        release();
      }
    }
    expect(closedWhileWorking).toBe(true);
    expect(artifactsOf(updates).map((a) => [chunkText(a), a.lastChunk])).toEqual([["On it.", true]]);
    expect(statusesOf(updates).map((s) => [s.status.state, textOfStatus(s)])).toEqual([
      ["working", "On it.\n\ndone"],
      ["completed", "On it.\n\ndone"],
    ]);
  });

  test("the local model's music turn: the last token chunk is marked before the first callback", async () => {
    const agent = await createElizaAgent({ store: new MemoryStore(), env: {} });
    const updates = await collect(agent.execute(turnContext("Play some jazz", randomUUID())));
    const tokens = artifactsOf(updates);
    expect(tokens.map((a) => a.lastChunk)).toEqual([...tokens.slice(1).map(() => false), true]);
    expect(updates.indexOf(tokens.at(-1)!)).toBeLessThan(updates.findIndex((u) => u.kind === "status"));
    expect(closedOnce(updates)).toBe(true);
  });

  test("an action that streams after the reply is complete extends it with snapshots, not more chunks", async () => {
    const model = new ScriptedModel(() => xml("REPLY,REPORT", "Report:"));
    const plugin: Plugin = {
      name: "p",
      actions: [
        act("REPORT", async (_r, _m, _s, options, cb) => {
          await options?.onStreamChunk?.(" section 1.");
          await cb?.({ text: "Report complete." });
          return { success: true };
        }),
      ],
    };
    const agent = await createElizaAgent({ store: new MemoryStore(), env: {}, character: bare, model, plugins: [plugin] });
    const updates = await collect(agent.execute(turnContext("report", randomUUID())));
    expect(closedOnce(updates)).toBe(true);
    expect(artifactsOf(updates).map((a) => [chunkText(a), a.lastChunk])).toEqual([["Report:", true]]);
    expect(statusesOf(updates).map((s) => [textOfStatus(s), s.metadata?.merge])).toEqual([
      ["Report: section 1.", "append"],
      ["Report: section 1.\n\nReport complete.", "replace"],
      ["Report: section 1.\n\nReport complete.", undefined],
    ]);
  });

  test("a failed action after the reply also closes the artifact first", async () => {
    const model = new ScriptedModel(() => xml("REPLY,NOPE", "Trying."));
    const agent = await createElizaAgent({ store: new MemoryStore(), env: {}, character: bare, model });
    const updates = await collect(agent.execute(turnContext("go", randomUUID())));
    expect(closedOnce(updates)).toBe(true);
    expect(artifactsOf(updates).map((a) => [chunkText(a), a.lastChunk])).toEqual([["Trying.", true]]);
    expect(textOfStatus(finalOf(updates))).toBe("Trying.\n\nNOPE failed: there is no such action");
  });
});

describe("persistence", () => {
  test("a conversation survives a restart (SQLite store): transcript and recent messages", async () => {
    const dir = mkdtempSync(join(tmpdir(), "eliza-"));
    const path = join(dir, "router.db");
    try {
      const room = randomUUID();
      const store1 = await SqliteStore.open(path);
      const agent1 = await createElizaAgent({ store: store1, env: {}, logger: silentLogger });
      await collect(agent1.execute(turnContext("Play some jazz", room)));
      const before = await agent1.readConversation(room);
      await store1.close();

      const store2 = await SqliteStore.open(path);
      const model = new ScriptedModel(() => xml("REPLY", "welcome back"));
      const agent2 = await createElizaAgent({ store: store2, env: {}, model });
      expect(await agent2.readConversation(room)).toEqual(before);
      expect(before.messages).toHaveLength(2);
      await collect(agent2.execute(turnContext("what did I ask?", room)));
      expect(model.prompts[0]).toContain(
        "user: Play some jazz\nEliza: Sure! Let me play that.\nEliza: 🔍 Looking up track...\n🔍 Searching for track...\n✨ Setting up playback...\n\nNow playing: **Some Jazz**\nuser: what did I ask?",
      );
      expect((await agent2.readConversation(room)).messages.map((m) => m.text).slice(2)).toEqual(["what did I ask?", "welcome back"]);
      await store2.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
