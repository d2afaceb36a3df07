/**
 * CONTRACT 8 and 14 through the CLI: a task that asks back exits 4 and says how to answer; `--task ID`
 * continues it and prints that turn's answer only. Eliza's flight booking (the offline default model) and an
 * SDK agent written with `ctx.ask`, over `send` and `stream`.
 */
import { afterAll, beforeAll, describe, expect, jest, test } from "@jest/globals";
import { connectAgent, type Agent } from "../../agents/sdk/index.js";
import { startRouter, type RunningRouter } from "../../router/index.js";
import { memoryLogger } from "../sdk/helpers.js";
import { ensureBuilt } from "./build.js";
import { cli } from "./run-cli.js";

// Each test spawns node processes one after another: on a loaded machine that is a wait, not a hang.
jest.setTimeout(90_000);

let router: RunningRouter;
let asker: Agent;
let env: Record<string, string | undefined>;

beforeAll(async () => {
  await ensureBuilt();
  router = await startRouter({ port: 0, store: "memory" });
  env = { A2A_ROUTER_URL: router.url, A2A_ROUTER_API_KEY: undefined };
  asker = connectAgent({ url: `${router.url.replace(/^http/, "ws")}/hub`, name: "cli-asker", logger: memoryLogger() }).skill(
    { name: "book", description: "asks where from, then books" },
    async function* (message, ctx) {
      const answer = await ctx.ask(`From where do you fly to ${message}?`);
      yield "Booked ";
      yield `${message} from ${answer.parts.map((p) => ("text" in p ? p.text : "")).join("")}.`;
    },
  );
  await asker.ready;
}, 300_000);

afterAll(async () => {
  await asker?.close();
  await router?.close();
});

/** The task id in the "answer with: a2a-router send --task ID" hint. */
function hintedTask(stderr: string): string {
  const match = /answer with: a2a-router send --task (\S+)/.exec(stderr);
  if (!match) throw new Error(`no hint in: ${stderr}`);
  return match[1]!;
}

describe("asking back", () => {
  test("Eliza: send exits 4 with the question; send --task with the origin exits 0 and prints only the booking", async () => {
    const first = await cli(["send", "book a flight to Paris tomorrow"], { env });
    expect(first.code).toBe(4);
    expect(first.stdout).toContain("what is the departure city or airport code?");
    const taskId = hintedTask(first.stderr);
    const second = await cli(["send", "--task", taskId, "from London"], { env });
    expect(second.code).toBe(0);
    // The first turn's reply ("I'll book that flight for you.") is not printed again.
    expect(second.stdout).toMatch(/^✅ Booked 1 seat from London to Paris on \d{4}-\d{2}-\d{2}\. Booking BK-\w+\.\n$/);
    expect(second.stderr).toBe("");
    const again = await cli(["send", "--task", taskId, "to Rome"], { env });
    expect(again.code).toBe(1);
    expect(again.stderr).toContain("already completed");
  });

  test("an SDK agent's ctx.ask: stream exits 4; stream --task goes on in the same handler and exits 0", async () => {
    const first = await cli(["stream", "--agent", "cli-asker", "Oslo"], { env });
    expect(first).toMatchObject({ code: 4, stdout: "From where do you fly to Oslo?\n" });
    const taskId = hintedTask(first.stderr);
    const second = await cli(["stream", "--agent", "cli-asker", "--task", taskId, "Bergen"], { env });
    expect(second).toMatchObject({ code: 0, stdout: "Booked Oslo from Bergen.\n", stderr: "" });
  });

  test("--json: the input-required task as one JSON line, exit 4", async () => {
    const r = await cli(["send", "--json", "--agent", "cli-asker", "Lima"], { env });
    expect(r.code).toBe(4);
    const [line] = r.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(JSON.stringify(line)).toContain("From where do you fly to Lima?");
    expect(JSON.stringify(line)).toMatch(/input-required|INPUT_REQUIRED/);
  });
});
