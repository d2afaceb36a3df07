/**
 * The CLI's text output for Eliza off a terminal (stdout piped, as in these tests): token appends, then
 * action callbacks as replace snapshots, then a final answer that repeats the visible reply. The answer
 * must read once on stdout, each progress line once on stderr, and `send`/`get` must not print the `reply`
 * artifact again.
 */
import { afterAll, beforeAll, describe, expect, test } from "@jest/globals";
import { createElizaAgent } from "../../agents/eliza/index.js";
import type { Character } from "../../agents/eliza/types.js";
import { startRouter, type RunningRouter } from "../../router/index.js";
import { MemoryStore } from "../../router/store/memory-store.js";
import { musicTurn, startFakeOpenAi, type FakeOpenAi } from "../eliza/fake-openai-server.js";
import { ensureBuilt } from "./build.js";
import { cli, jsonLines } from "./run-cli.js";

const character: Character = { name: "Routed", system: "You are Routed.", plugins: ["example"], settings: { MUSIC_PROGRESS_DELAY_MS: 0 } };
const ANSWER = "Sure! Let me play that.\n\nNow playing: **Track**";

let model: FakeOpenAi;
let router: RunningRouter;
let env: Record<string, string | undefined>;

beforeAll(async () => {
  await ensureBuilt();
  model = await startFakeOpenAi(musicTurn);
  const store = new MemoryStore();
  const eliza = await createElizaAgent({ store, character, env: { OPENAI_BASE_URL: model.url, OPENAI_API_KEY: "k" } });
  router = await startRouter({ port: 0, store, hostedAgents: [eliza], config: {} });
  env = { A2A_ROUTER_URL: router.url, A2A_ROUTER_API_KEY: undefined };
}, 300_000);

afterAll(async () => {
  await router?.close();
  await model?.close();
});

describe("eliza through the CLI, piped", () => {
  test("stream prints the answer once on stdout, and each progress line once on stderr", async () => {
    const r = await cli(["stream", "--agent", "eliza", "play track"], { env });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(`${ANSWER}\n`);
    // The callbacks are status lines (snapshots of the reply, CONTRACT 9): each shows what it adds to the
    // reply. (Whether the streamed tokens already made "Sure! Let me play that." part of the answer is the
    // Eliza edge's labelling; the lines after it read the same either way.)
    expect(r.stderr).toMatch(/🔍 Looking up track\.\.\.\n🔍 Searching for track\.\.\.\n✨ Setting up playback\.\.\.\nNow playing: \*\*Track\*\*\n$/);
    expect(r.stderr.match(/Looking up track/g)).toHaveLength(1);
  });

  test("--json still prints every event as it came", async () => {
    const r = await cli(["stream", "--agent", "eliza", "--json", "play track"], { env });
    const events = jsonLines(r.stdout);
    const snapshots = events.filter((e) => e.metadata?.merge === "replace");
    expect(snapshots.map((e) => e.status.message.parts[0].text)).toHaveLength(4);
    expect(events.at(-1)).toMatchObject({ final: true, status: { state: "completed", message: { parts: [{ text: ANSWER }] } } });
  });

  test("send and get print the answer once, not the reply artifact it contains", async () => {
    const sent = await cli(["send", "--agent", "eliza", "--task", "eliza-cli-1", "play track"], { env });
    expect(sent).toMatchObject({ code: 0, stdout: `${ANSWER}\n`, stderr: "" });
    const task = jsonLines((await cli(["get", "eliza-cli-1", "--json"], { env })).stdout)[0];
    // The premise: the reply streamed as tokens is kept as an artifact, and the answer contains it.
    expect(task.artifacts).toEqual([expect.objectContaining({ name: "reply", parts: [{ type: "text", text: "Sure! Let me play that." }] })]);
    const got = await cli(["get", "eliza-cli-1"], { env });
    expect(got).toMatchObject({ code: 0, stdout: `task eliza-cli-1: completed\n${ANSWER}\n`, stderr: "" });
  });
});
