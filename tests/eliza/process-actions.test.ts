import { describe, expect, test } from "@jest/globals";
import { processActions, type TurnCallback } from "../../agents/eliza/process-actions.js";
import type { Action, ActionResult, Content, Memory, State } from "../../agents/eliza/types.js";
import { makeRuntime } from "./helpers.js";

const message: Memory = { id: "m1", entityId: "user:r", roomId: "r", content: { text: "go" } };
const baseState = (): State => ({ values: { agentName: "Tester", fromProvider: "p" }, data: {}, text: "" });

function act(name: string, handler: Action["handler"], extra: Partial<Action> = {}): Action {
  return { name, description: name, validate: async () => true, handler, ...extra };
}

function responses(actions: string[], params: Record<string, unknown> = {}): Memory[] {
  return [{ entityId: "eliza", roomId: "r", content: { text: "ok", actions, params } }];
}

const noCallback: TurnCallback = async () => [];

describe("processActions: the chain", () => {
  test("runs in the listed order and merges each action's values into the next one's state.values", async () => {
    const seen: Array<[string, Record<string, unknown>]> = [];
    const runtime = makeRuntime([
      {
        name: "p",
        actions: [
          act("LOOKUP_USER", async (_r, _m, state) => {
            seen.push(["LOOKUP_USER", { ...state!.values }]);
            return { success: true, values: { userId: 7, userEmail: "a@b.c" }, data: { user: { id: 7 } } };
          }),
          act("ENRICH", async (_r, _m, state) => {
            seen.push(["ENRICH", { ...state!.values }]);
            return { success: true, values: { userEmail: "override@b.c", tier: "gold" } };
          }),
          act("SEND_EMAIL", async (_r, _m, state, options) => {
            seen.push(["SEND_EMAIL", { ...state!.values }]);
            expect(options?.actionContext?.previousResults).toHaveLength(2);
            expect(options?.actionContext?.getPreviousResult("lookup_user")?.data).toEqual({ user: { id: 7 } });
            expect((state!.data.actionResults as ActionResult[]).map((r) => r.success)).toEqual([true, true]);
            return { success: true, text: `sent to ${state!.values.userEmail}` };
          }),
        ],
      },
    ]);
    const out = await processActions(runtime, message, responses(["LOOKUP_USER", "ENRICH", "SEND_EMAIL"]), baseState(), noCallback);
    expect(seen.map(([n]) => n)).toEqual(["LOOKUP_USER", "ENRICH", "SEND_EMAIL"]);
    expect(seen[0][1]).toEqual({ agentName: "Tester", fromProvider: "p" });
    expect(seen[1][1]).toMatchObject({ userId: 7, userEmail: "a@b.c" });
    expect(seen[2][1]).toEqual({ agentName: "Tester", fromProvider: "p", userId: 7, userEmail: "override@b.c", tier: "gold" });
    expect(out.map((o) => [o.action, o.success, o.text])).toEqual([
      ["LOOKUP_USER", true, undefined],
      ["ENRICH", true, undefined],
      ["SEND_EMAIL", true, "sent to override@b.c"],
    ]);
  });

  test("continueChain:false stops the chain; cleanups all run, last first, also after a throw", async () => {
    const log: string[] = [];
    const runtime = makeRuntime([
      {
        name: "p",
        actions: [
          act("A", async () => ({ success: true, cleanup: () => void log.push("cleanup A") })),
          act("BOOM", async () => {
            log.push("BOOM ran");
            throw new Error("disk on fire");
          }),
          act("B", async () => ({ success: true, continueChain: false, cleanup: async () => void log.push("cleanup B") })),
          act("C", async () => {
            log.push("C ran");
            return { success: true };
          }),
        ],
      },
    ]);
    const told: Array<[string, Content]> = [];
    const out = await processActions(runtime, message, responses(["A", "BOOM", "B", "C"]), baseState(), async (c, from) => {
      told.push([from, c]);
      return [];
    });
    expect(log).toEqual(["BOOM ran", "cleanup B", "cleanup A"]);
    expect(told).toEqual([["BOOM", { text: "BOOM failed: disk on fire", merge: "replace" }]]);
    expect(out).toEqual([
      { action: "A", success: true },
      { action: "BOOM", success: false, error: "BOOM threw: disk on fire" },
      { action: "B", success: true },
    ]);
  });

  test("a throwing cleanup does not stop the other cleanups", async () => {
    const log: string[] = [];
    const runtime = makeRuntime([
      {
        name: "p",
        actions: [
          act("A", async () => ({ success: true, cleanup: () => void log.push("A") })),
          act("B", async () => ({
            success: true,
            cleanup: () => {
              throw new Error("nope");
            },
          })),
        ],
      },
    ]);
    await processActions(runtime, message, responses(["A", "B"]), baseState(), noCallback);
    expect(log).toEqual(["A"]);
  });

  test("validate gates the action; unknown actions fail; similes and loose names resolve", async () => {
    const ran: string[] = [];
    const runtime = makeRuntime([
      {
        name: "p",
        actions: [
          act(
            "GATED",
            async () => {
              ran.push("GATED");
            },
            { validate: async () => false },
          ),
          act(
            "THROWS_IN_VALIDATE",
            async () => {
              ran.push("x");
            },
            {
              validate: async () => {
                throw new Error("bad state");
              },
            },
          ),
          act(
            "SEND_MESSAGE",
            async () => {
              ran.push("SEND_MESSAGE");
            },
            { similes: ["dm"] },
          ),
        ],
      },
    ]);
    const told: Array<[string, Content]> = [];
    const out = await processActions(
      runtime,
      message,
      responses(["GATED", "THROWS_IN_VALIDATE", "NOPE", "dm", "send message"]),
      baseState(),
      async (c, from) => {
        told.push([from, c]);
        return [];
      },
    );
    expect(ran).toEqual(["SEND_MESSAGE", "SEND_MESSAGE"]);
    // Failures are told to the user as replacing callbacks; validate() answering false is not a failure.
    expect(told).toEqual([
      ["THROWS_IN_VALIDATE", { text: "THROWS_IN_VALIDATE failed: could not check whether it applies: bad state", merge: "replace" }],
      ["NOPE", { text: "NOPE failed: there is no such action", merge: "replace" }],
    ]);
    expect(out).toEqual([
      { action: "GATED", success: false, error: "GATED: validate() refused to run it here" },
      { action: "THROWS_IN_VALIDATE", success: false, error: "THROWS_IN_VALIDATE: validate() threw: bad state" },
      { action: "NOPE", success: false, error: 'unknown action "NOPE"' },
      { action: "SEND_MESSAGE", success: true },
      { action: "SEND_MESSAGE", success: true },
    ]);
  });

  test("parameters: valid ones reach the handler coerced; invalid ones fail the action before it runs", async () => {
    const got: unknown[] = [];
    const flight = act(
      "BOOK",
      async (_r, _m, _s, options) => {
        got.push(options?.parameters);
        return { success: true };
      },
      {
        parameters: [
          { name: "to", description: "d", required: true, schema: { type: "string" } },
          { name: "seats", description: "n", schema: { type: "number", minimum: 1, default: 1 } },
        ],
      },
    );
    const runtime = makeRuntime([{ name: "p", actions: [flight] }]);
    const ok = await processActions(runtime, message, responses(["BOOK"], { book: { to: "JFK", seats: "3" } }), baseState(), noCallback);
    expect(ok).toEqual([{ action: "BOOK", success: true }]);
    expect(got).toEqual([{ to: "JFK", seats: 3 }]);

    const told: string[] = [];
    const bad = await processActions(runtime, message, responses(["BOOK", "BOOK"], { BOOK: { seats: "0" } }), baseState(), async (c) => {
      told.push(c.text ?? "");
      return [];
    });
    expect(got).toHaveLength(1);
    expect(told).toEqual(Array(2).fill('BOOK failed: missing required parameter "to"; parameter "seats" must be >= 1'));
    expect(bad).toEqual([
      { action: "BOOK", success: false, error: 'BOOK: missing required parameter "to"; parameter "seats" must be >= 1' },
      { action: "BOOK", success: false, error: 'BOOK: missing required parameter "to"; parameter "seats" must be >= 1' },
    ]);
  });

  test("callbacks carry the sending action's name, in order, while the action runs", async () => {
    const calls: Array<[string, Content]> = [];
    const runtime = makeRuntime([
      {
        name: "p",
        actions: [
          act("STEPS", async (_r, _m, _s, _o, callback) => {
            await callback!({ text: "one" });
            await callback!({ text: "two", merge: "append" });
            return { success: true };
          }),
        ],
      },
    ]);
    await processActions(runtime, message, responses(["STEPS"]), baseState(), async (content, from) => {
      calls.push([from, content]);
      return [];
    });
    expect(calls).toEqual([
      ["STEPS", { text: "one" }],
      ["STEPS", { text: "two", merge: "append" }],
    ]);
  });

  test("a callback that cannot deliver a failure notice does not stop the chain", async () => {
    const runtime = makeRuntime([{ name: "p", actions: [act("OK", async () => ({ success: true }))] }]);
    const out = await processActions(runtime, message, responses(["NOPE", "OK"]), baseState(), async () => {
      throw new Error("client gone");
    });
    expect(out.map((o) => [o.action, o.success])).toEqual([
      ["NOPE", false],
      ["OK", true],
    ]);
  });

  test("onActionStart is called right before each handler runs, not for actions that never run", async () => {
    const events: string[] = [];
    const runtime = makeRuntime([
      {
        name: "p",
        actions: [
          act("RUNS", async () => void events.push("RUNS handler")),
          act("GATED", async () => void events.push("GATED handler"), { validate: async () => false }),
        ],
      },
    ]);
    await processActions(runtime, message, responses(["GATED", "NOPE", "RUNS"]), baseState(), noCallback, {
      onActionStart: (name) => void events.push(`start ${name}`),
    });
    expect(events).toEqual(["start RUNS", "RUNS handler"]);
  });

  test("an aborted signal stops the chain before the next action, and cleanups still run", async () => {
    const controller = new AbortController();
    const log: string[] = [];
    const runtime = makeRuntime([
      {
        name: "p",
        actions: [
          act("FIRST", async () => {
            controller.abort();
            return { success: true, cleanup: () => void log.push("cleanup FIRST") };
          }),
          act("SECOND", async () => {
            log.push("SECOND");
          }),
        ],
      },
    ]);
    const out = await processActions(runtime, message, responses(["FIRST", "SECOND"]), baseState(), noCallback, { signal: controller.signal });
    expect(out.map((o) => o.action)).toEqual(["FIRST"]);
    expect(log).toEqual(["cleanup FIRST"]);
  });
});
