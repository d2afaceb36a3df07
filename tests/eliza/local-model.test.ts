import { describe, expect, test } from "@jest/globals";
import { localResponseChunks, matchActions, LocalModel } from "../../agents/eliza/models/local.js";
import { elizaReply } from "../../agents/eliza/models/eliza-reflection.js";
import { shouldBypassShouldRespond } from "../../agents/eliza/should-respond.js";
import { bootstrapPlugin } from "../../agents/eliza/plugins/bootstrap/index.js";
import { examplePlugin } from "../../agents/eliza/plugins/example/index.js";
import { parseKeyValueXml } from "../../agents/eliza/xml.js";
import type { Action } from "../../agents/eliza/types.js";

const actions = [...bootstrapPlugin.actions!, ...examplePlugin.actions!];
const a = (name: string, extra: Partial<Action> = {}): Action => ({
  name,
  description: name,
  validate: async () => true,
  handler: async () => ({ success: true }),
  ...extra,
});

describe("the local model", () => {
  test("matches actions by name, simile or tag as whole words; never the built-ins", () => {
    expect(matchActions("please book flight", actions).map((m) => m.action.name)).toEqual(["BOOK_FLIGHT"]);
    expect(matchActions("I want to fly", actions).map((m) => m.action.name)).toEqual(["BOOK_FLIGHT"]);
    expect(matchActions("some music then a flight", actions).map((m) => m.action.name)).toEqual(["PLAY_MUSIC", "BOOK_FLIGHT"]);
    expect(matchActions("display the reply", actions)).toEqual([]);
  });

  test("orders matches by priority, then by position in the message", () => {
    const list = [a("FIRST", { similes: ["alpha"] }), a("URGENT", { similes: ["omega"], priority: 5 })];
    expect(matchActions("alpha then omega", list).map((m) => m.action.name)).toEqual(["URGENT", "FIRST"]);
  });

  test("answers in elizaOS's XML, REPLY first, params for the matched actions", () => {
    const chunks = localResponseChunks({
      purpose: "messageHandler",
      messageText: "Book a flight from SFO to JFK on 2025-03-15",
      character: { name: "E" },
      actions,
    });
    expect(chunks.length).toBeGreaterThan(2);
    expect(parseKeyValueXml(chunks.join(""))).toEqual({
      thought: "The user asks for BOOK_FLIGHT.",
      actions: ["REPLY", "BOOK_FLIGHT"],
      providers: [],
      text: "I'll book that flight for you.",
      params: { BOOK_FLIGHT: { origin: "SFO", destination: "JFK", departureDate: "2025-03-15" } },
    });
  });

  test("streams what it returns, and stops when aborted", async () => {
    const model = new LocalModel();
    const seen: string[] = [];
    const context = { purpose: "messageHandler" as const, messageText: "hello", character: { name: "E" }, actions };
    const out = await model.generate("TEXT_LARGE", { prompt: "p", context, onStreamChunk: (c) => seen.push(c) });
    expect(seen.join("")).toBe(out);
    const controller = new AbortController();
    controller.abort(new Error("stop"));
    await expect(model.generate("TEXT_LARGE", { prompt: "p", context, signal: controller.signal })).rejects.toThrow("stop");
  });

  test("ELIZA reflects pronouns", () => {
    expect(["How long have you been worried about your exam?", "Why do you say you are worried about your exam?"]).toContain(
      elizaReply("I am worried about my exam."),
    );
  });
});

describe("shouldRespond bypass", () => {
  test("direct channel types and sources skip the check", () => {
    expect(shouldBypassShouldRespond(undefined, "a2a")).toBe(true);
    expect(shouldBypassShouldRespond(undefined, "client_chat")).toBe(true);
    expect(shouldBypassShouldRespond("DM", "discord")).toBe(true);
    expect(shouldBypassShouldRespond("group", "discord")).toBe(false);
    expect(shouldBypassShouldRespond(undefined, undefined)).toBe(false);
  });
});
