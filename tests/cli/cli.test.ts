import { createServer, type Socket } from "node:net";
import { afterAll, beforeAll, describe, expect, jest, test } from "@jest/globals";
import { completeAgent } from "../../agents/examples/ws-complete-agent.js";
import { connectAgent, type Agent } from "../../agents/sdk/index.js";
import { startRouter, type RunningRouter } from "../../router/index.js";
import { deferred, memoryLogger } from "../sdk/helpers.js";
import { ensureBuilt } from "./build.js";
import { labelledAgent } from "./labelled-agent.js";
import { cli, CliProcess, jsonLines } from "./run-cli.js";

// Each test spawns several node processes one after another: on a loaded 2-core machine that can take
// longer than the default 30 s, which is a wait, not a hang.
jest.setTimeout(90_000);

let router: RunningRouter;
let agent: Agent;
let counter: Agent;
/** The router side of each client request, newest last: cutting one is the router dying for that client. */
const requestSockets: Socket[] = [];
let env: Record<string, string | undefined>;
/** Gates the `wait` skill's tasks on, by task id. */
const gates = new Map<string, ReturnType<typeof deferred<void>>>();
const gate = (taskId: string) => gates.get(taskId) ?? gates.set(taskId, deferred()).get(taskId)!;

beforeAll(async () => {
  await ensureBuilt();
  router = await startRouter({ port: 0, store: "memory", hostedAgents: [labelledAgent((taskId) => gate(taskId).promise)] });
  env = { A2A_ROUTER_URL: router.url, A2A_ROUTER_API_KEY: undefined };
  router.server.on("request", (req) => requestSockets.push(req.socket));
  counter = completeAgent({ url: `${router.url.replace(/^http/, "ws")}/hub`, name: "counter", logger: memoryLogger() });
  agent = connectAgent({ url: `${router.url.replace(/^http/, "ws")}/hub`, name: "cli-agent", logger: memoryLogger() })
    .skill({ name: "chunks", description: "streams the words upper-cased" }, async function* (message) {
      for (const word of message.split(" ")) yield `${word.toUpperCase()} `;
    })
    .skill({ name: "fail", description: "throws" }, async () => {
      throw new Error("the tool broke");
    })
    .skill({ name: "ask", description: "asks, then answers" }, async (message) =>
      message === "start" ? { state: "input-required" as const, text: "which colour?" } : `you chose ${message}`,
    )
    .skill({ name: "wait", description: "waits for its gate or a cancel" }, async function* (_m, ctx) {
      yield "waiting";
      await Promise.race([gate(ctx.taskId).promise, new Promise((r) => ctx.signal.addEventListener("abort", r, { once: true }))]);
      yield " released";
    })
    .skill({ name: "progress", description: "reports progress, then answers" }, async function* (_m, ctx) {
      await ctx.status("thinking...");
      yield "HI YOU";
    })
    .skill({ name: "meta", description: "answers with what it was given" }, async (_m, ctx) =>
      JSON.stringify({ metadata: ctx.metadata, sessionId: ctx.sessionId, skill: ctx.skill }),
    );
  await Promise.all([agent.ready, counter.ready]);
}, 300_000);

afterAll(async () => {
  await counter?.close();
  await agent?.close();
  await router?.close();
});

describe("send", () => {
  test("sends the argument text and prints the answer; exit 0", async () => {
    const r = await cli(["send", "--agent", "cli-agent", "hello", "there"], { env });
    expect(r).toMatchObject({ code: 0, stdout: "HELLO THERE \n", stderr: "" });
  });

  test("reads the text from stdin when no argument is given", async () => {
    const r = await cli(["send", "--agent", "echo"], { env, input: "from stdin\n" });
    expect(r).toMatchObject({ code: 0, stdout: "from stdin\n" });
  });

  test("--json prints the task as one JSON line; --task sets its id", async () => {
    const r = await cli(["send", "--agent", "echo", "--task", "cli-json-1", "--json", "hi"], { env });
    expect(r.code).toBe(0);
    const [task, ...rest] = jsonLines(r.stdout);
    expect(rest).toEqual([]);
    expect(task).toMatchObject({ id: "cli-json-1", status: { state: "completed", message: { parts: [{ type: "text", text: "hi" }] } } });
  });

  test("--skill, --session and --metadata reach the agent", async () => {
    const r = await cli(["send", "--agent", "cli-agent", "--skill", "meta", "--session", "sess-9", "--metadata", '{"priority":"high"}', "x"], { env });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({
      metadata: expect.objectContaining({ priority: "high", agent: "cli-agent", skill: "meta" }),
      sessionId: "sess-9",
      skill: "meta",
    });
  });

  test("a failed task exits 1 with its message on stderr", async () => {
    const r = await cli(["send", "--agent", "cli-agent", "--skill", "fail", "--task", "cli-fail-1", "x"], { env });
    expect(r).toMatchObject({ code: 1, stdout: "", stderr: "task cli-fail-1 failed: the tool broke\n" });
  });

  test("input-required exits 4 and says how to answer; answering on the same task completes it", async () => {
    const first = await cli(["send", "--agent", "cli-agent", "--skill", "ask", "--task", "cli-ask-1", "start"], { env });
    expect(first).toMatchObject({ code: 4, stdout: "which colour?\n" });
    expect(first.stderr).toContain("a2a-router send --task cli-ask-1");
    const second = await cli(["send", "--agent", "cli-agent", "--skill", "ask", "--task", "cli-ask-1", "blue"], { env });
    expect(second).toMatchObject({ code: 0, stdout: "you chose blue\n" });
  });
});

describe("stream", () => {
  test("prints the answer's deltas as they arrive; exit 0", async () => {
    const r = await cli(["stream", "--agent", "labelled", "a", "b", "c"], { env });
    expect(r).toMatchObject({ code: 0, stdout: "A B C \n", stderr: "" });
  });

  test("piped, progress statuses go to stderr and the answer is printed once on stdout; --json is unchanged", async () => {
    const r = await cli(["stream", "--agent", "labelled", "--skill", "progress", "x"], { env });
    expect(r).toMatchObject({ code: 0, stdout: "HI YOU\n", stderr: "thinking...\n" });
    const json = await cli(["stream", "--agent", "labelled", "--skill", "progress", "--json", "x"], { env });
    expect(jsonLines(json.stdout).map((e) => [e.seq, e.status.message.parts[0].text, e.metadata ?? null, e.final])).toEqual([
      [1, "thinking...", { textKind: "progress" }, false],
      [2, "HI YOU", { textKind: "delta" }, false],
      [3, "HI YOU", { textKind: "snapshot" }, true],
    ]);
  });

  test("an SDK agent through the hub: yielded chunks are the answer on stdout, ctx.status is progress on stderr", async () => {
    const chunks = await cli(["stream", "--agent", "cli-agent", "a", "b", "c"], { env });
    expect(chunks).toMatchObject({ code: 0, stdout: "A B C \n", stderr: "" });
    const r = await cli(["stream", "--agent", "cli-agent", "--skill", "progress", "x"], { env });
    expect(r).toMatchObject({ code: 0, stdout: "HI YOU\n", stderr: "thinking...\n" });
    const json = await cli(["stream", "--agent", "cli-agent", "--skill", "progress", "--json", "x"], { env });
    expect(jsonLines(json.stdout).map((e) => [e.seq, e.status.message.parts[0].text, e.metadata ?? null, e.final])).toEqual([
      // Each text names its kind (CONTRACT 9): ctx.status is progress, a yielded chunk a delta, the final a snapshot.
      [1, "thinking...", { progress: true, textKind: "progress" }, false],
      [2, "HI YOU", { textKind: "delta" }, false],
      [3, "HI YOU", { textKind: "snapshot" }, true],
    ]);
  });

  test("--json prints one event a line, each logged one with its seq", async () => {
    const r = await cli(["stream", "--agent", "cli-agent", "--task", "cli-stream-json", "--json"], { env, input: "x y" });
    expect(r.code).toBe(0);
    const events = jsonLines(r.stdout);
    expect(events.map((e) => e.seq)).toEqual([1, 2, 3]);
    expect(events.map((e) => e.status.state)).toEqual(["working", "working", "completed"]);
    expect(events.map((e) => e.final)).toEqual([false, false, true]);
    expect(events.every((e) => e.id === "cli-stream-json")).toBe(true);
    expect(events[2].status.message.parts[0].text).toBe("X Y ");
  });

  test("a task canceled from another terminal ends the stream with exit 3", async () => {
    const streaming = new CliProcess(["stream", "--agent", "labelled", "--skill", "wait", "--task", "cli-cancel-1", "x"], { env });
    await streaming.untilStdout((s) => s.includes("waiting"));
    const canceled = await cli(["cancel", "cli-cancel-1"], { env });
    expect(canceled).toMatchObject({ code: 0, stdout: "task cli-cancel-1: canceled\n" });
    const r = await streaming.done;
    expect(r).toMatchObject({ code: 3, stdout: "waiting\n", stderr: "task cli-cancel-1 was canceled\n" });
  });

  test("Ctrl-C stops following, prints how to resume, and the task goes on; resubscribe picks up after the last event", async () => {
    const streaming = new CliProcess(["stream", "--agent", "labelled", "--skill", "wait", "--task", "cli-int-1", "x"], { env });
    await streaming.untilStdout((s) => s.includes("waiting"));
    streaming.child.kill("SIGINT");
    const r = await streaming.done;
    expect(r.code).toBe(130);
    expect(r.stderr).toBe(
      `stopped following task cli-int-1; it goes on. Resume with: a2a-router resubscribe --task cli-int-1 --last-event-id 1 --url ${router.url}\n`,
    );
    const running = await cli(["get", "cli-int-1", "--json"], { env });
    expect(running.code).toBe(0);
    expect(jsonLines(running.stdout)[0].status.state).toBe("working");

    const resumed = new CliProcess(["resubscribe", "--task", "cli-int-1", "--last-event-id", "1", "--json"], { env });
    gate("cli-int-1").resolve();
    const done = await resumed.done;
    expect(done.code).toBe(0);
    const events = jsonLines(done.stdout);
    expect(events.map((e) => e.seq)).toEqual([2, 3]);
    expect(events.at(-1)).toMatchObject({ final: true, status: { state: "completed", message: { parts: [{ text: "waiting released" }] } } });
  });
});

describe("the router going away mid-answer", () => {
  test("a stream cut by the router exits 5 with the command that resumes it; that command finishes the task", async () => {
    const streaming = new CliProcess(["stream", "--agent", "labelled", "--skill", "wait", "--task", "cli-lost-1", "x"], { env });
    await streaming.untilStdout((s) => s.includes("waiting"));
    requestSockets.at(-1)!.destroy();
    const r = await streaming.done;
    expect(r.code).toBe(5);
    const resume = `a2a-router resubscribe --task cli-lost-1 --last-event-id 1 --url ${router.url}`;
    expect(r.stderr).toBe(`a2a-router: lost the connection to the router at ${router.url}: aborted. Task cli-lost-1 may go on; resume with: ${resume}\n`);

    const resumed = new CliProcess([...resume.split(" ").slice(1), "--json"], { env });
    gate("cli-lost-1").resolve();
    const done = await resumed.done;
    expect(done.code).toBe(0);
    expect(jsonLines(done.stdout).map((e) => e.seq)).toEqual([2, 3]);
  });

  test("a send whose connection the router drops exits 5 and says how to check the task", async () => {
    const started = new Promise<void>((resolve) => {
      const onTask = (e: { taskId: string }) => {
        if (e.taskId !== "cli-lost-2") return;
        agent.off("task", onTask);
        resolve();
      };
      agent.on("task", onTask);
    });
    const sending = new CliProcess(["send", "--agent", "cli-agent", "--skill", "wait", "--task", "cli-lost-2", "x"], { env, input: "" });
    await started;
    requestSockets.at(-1)!.destroy();
    const r = await sending.done;
    expect(r.code).toBe(5);
    expect(r.stderr).toMatch(
      new RegExp(
        `^a2a-router: lost the connection to the router at ${router.url}: .+\\. Task cli-lost-2 may go on; check it with: a2a-router get cli-lost-2 --url ${router.url}\\n$`,
      ),
    );
    gate("cli-lost-2").resolve();
  });
});

describe("a multi-turn task (the counter example's compare skill, as in docs/cli.md)", () => {
  test("the first send exits 4 with the question; answering on the same --task completes it", async () => {
    const first = await cli(["send", "--agent", "counter", "--skill", "compare", "--task", "cmp-1", "the quick brown fox"], { env });
    expect(first).toMatchObject({ code: 4, stdout: "Got your first text (4 words, 19 characters, 1 line). What should I compare it with?\n" });
    expect(first.stderr).toBe(`task cmp-1 needs more input; answer with: a2a-router send --task cmp-1 --url ${router.url} "..."\n`);
    const second = await cli(["send", "--task", "cmp-1", "a lazy dog"], { env });
    expect(second).toMatchObject({
      code: 0,
      stdout: "first: 4 words, 19 characters, 1 line; second: 3 words, 10 characters, 1 line; 1 word fewer in the second.\n",
      stderr: "",
    });
  });

  test("stream does the same: exit 4 after the question, then the answer on the same --task", async () => {
    const first = await cli(["stream", "--agent", "counter", "--skill", "compare", "--task", "cmp-2", "one two"], { env });
    expect(first).toMatchObject({ code: 4, stdout: "Got your first text (2 words, 7 characters, 1 line). What should I compare it with?\n" });
    const second = await cli(["stream", "--task", "cmp-2", "three"], { env });
    expect(second).toMatchObject({
      code: 0,
      stdout: "first: 2 words, 7 characters, 1 line; second: 1 word, 5 characters, 1 line; 1 word fewer in the second.\n",
    });
  });
});

describe("resubscribe, get, cancel, agents", () => {
  test("resubscribe to a finished task prints its answer and exits by its state", async () => {
    await cli(["send", "--agent", "cli-agent", "--task", "cli-resub-1", "done"], { env });
    const r = await cli(["resubscribe", "cli-resub-1"], { env });
    expect(r).toMatchObject({ code: 0, stdout: "DONE \n" });
    const json = await cli(["resubscribe", "cli-resub-1", "--json"], { env });
    expect(jsonLines(json.stdout).at(-1)).toMatchObject({ final: true, status: { state: "completed" } });
  });

  test("get prints the state and the answer; --json the task; exit code follows the state", async () => {
    await cli(["send", "--agent", "cli-agent", "--task", "cli-get-1", "got"], { env });
    const r = await cli(["get", "--task", "cli-get-1"], { env });
    expect(r).toMatchObject({ code: 0, stdout: "task cli-get-1: completed\nGOT \n" });
    const json = await cli(["get", "cli-get-1", "--json"], { env });
    expect(jsonLines(json.stdout)).toEqual([expect.objectContaining({ id: "cli-get-1", status: expect.objectContaining({ state: "completed" }) })]);
    await cli(["send", "--agent", "cli-agent", "--skill", "fail", "--task", "cli-get-2", "x"], { env });
    expect((await cli(["get", "cli-get-2"], { env })).code).toBe(1);
  });

  test("get and cancel of an unknown task exit 1 with the router's message", async () => {
    const r = await cli(["get", "no-such-task"], { env });
    expect(r).toMatchObject({ code: 1, stdout: "", stderr: "a2a-router: Task not found: no-such-task (-32001)\n" });
    const c = await cli(["cancel", "no-such-task"], { env });
    expect(c.code).toBe(1);
  });

  test("cancel of a finished task exits 1: it cannot be canceled", async () => {
    await cli(["send", "--agent", "echo", "--task", "cli-done-1", "x"], { env });
    const r = await cli(["cancel", "cli-done-1"], { env });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^a2a-router: Task cannot be canceled: cli-done-1 is completed \(-32002\)\n$/);
  });

  test("agents lists every agent; --json one per line", async () => {
    const r = await cli(["agents"], { env });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^cli-agent +ws +online/m);
    expect(r.stdout).toMatch(/^echo +hosted +online/m);
    const json = await cli(["agents", "--json"], { env });
    const agents = jsonLines(json.stdout);
    expect(agents.map((a) => a.id)).toEqual(expect.arrayContaining(["echo", "cli-agent"]));
    expect(agents.find((a) => a.id === "cli-agent")).toMatchObject({ transport: "ws", online: true });
  });
});

describe("errors and exit codes", () => {
  test.each([
    [["send", "--metadata", "{bad", "x"], "a2a-router: --metadata is not valid JSON"],
    [["send", "--metadata", "[1]", "x"], "a2a-router: --metadata must be a JSON object"],
    [["send", "--url", "ftp://h", "x"], 'a2a-router: --url must be an http(s) URL, got "ftp://h"'],
    [["send"], "a2a-router: no message text: stdin was empty"],
    [["resubscribe"], "a2a-router: a task id is required: pass it as an argument or with --task"],
    [["resubscribe", "t", "--last-event-id", "x"], 'a2a-router: --last-event-id must be a whole number (an event\'s seq), got "x"'],
    [["get", "a", "--task", "b"], 'a2a-router: two different task ids given: "a" and --task "b"'],
    [["send", "--bogus", "x"], "error: unknown option '--bogus'"],
    [["send", "--agent", "nobody", "x"], 'a2a-router: Invalid params: unknown agent "nobody" (-32602)'],
    [
      ["list", "--state", "unknown"],
      'a2a-router: --state must be one of submitted, working, input-required, completed, canceled, failed, rejected, auth-required; got "unknown"',
    ],
  ])("%j is a usage error: exit 2, one line", async (args, message) => {
    const r = await cli(args, { env });
    expect(r.code).toBe(2);
    expect(r.stdout).toBe("");
    expect(r.stderr.split("\n")[0]).toContain(message);
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });

  test("a router that cannot be reached exits 5", async () => {
    const port = await new Promise<number>((resolve) => {
      const probe = createServer().listen(0, "127.0.0.1", () => {
        const { port } = probe.address() as { port: number };
        probe.close(() => resolve(port));
      });
    });
    const r = await cli(["agents"], { env: { ...env, A2A_ROUTER_URL: `http://127.0.0.1:${port}` } });
    expect(r.code).toBe(5);
    expect(r.stderr).toBe(`a2a-router: cannot reach the router at http://127.0.0.1:${port}: connect ECONNREFUSED 127.0.0.1:${port}\n`);
    const send = await cli(["send", "--url", `http://127.0.0.1:${port}`, "x"], { env });
    expect(send.code).toBe(5);
  });

  test("--help works on every command", async () => {
    const commands = ["send", "stream", "resubscribe", "get", "cancel", "list", "card", "agents", "push set", "push get", "push list", "push delete"];
    for (const command of commands) {
      const r = await cli([...command.split(" "), "--help"], { env });
      expect(r.code).toBe(0);
      expect(r.stdout).toContain(`Usage: a2a-router ${command}`);
      expect(r.stdout).toContain("--url <url>");
      expect(r.stdout).toContain("--a2a-version <version>");
    }
  });
});

describe("API keys", () => {
  let secured: RunningRouter;
  beforeAll(async () => {
    secured = await startRouter({ port: 0, store: "memory", config: { apiKeys: ["k-123"] } });
  });
  afterAll(() => secured.close());

  test("a missing key is refused with a hint; --api-key or A2A_ROUTER_API_KEY gets in", async () => {
    const refused = await cli(["agents", "--url", secured.url], { env });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("HTTP 401");
    expect(refused.stderr).toContain("--api-key");
    expect((await cli(["agents", "--url", secured.url, "--api-key", "k-123"], { env })).code).toBe(0);
    const viaEnv = await cli(["send", "--agent", "echo", "hi"], { env: { A2A_ROUTER_URL: secured.url, A2A_ROUTER_API_KEY: "k-123" } });
    expect(viaEnv).toMatchObject({ code: 0, stdout: "hi\n" });
  });
});

describe("usage errors from the option parser", () => {
  test("are one line naming the option", async () => {
    const r = await cli(["get", "--nope"], { env });
    expect(r).toMatchObject({ code: 2, stdout: "", stderr: "error: unknown option '--nope'\n" });
    const missing = await cli(["send", "--agent"], { env });
    expect(missing).toMatchObject({ code: 2, stderr: "error: option '--agent <id>' argument missing\n" });
  });
});
