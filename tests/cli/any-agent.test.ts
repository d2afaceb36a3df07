/**
 * The CLI against an @a2a-js/sdk server with no router in between (tests/interop/sdk-agent.ts: JSON-RPC
 * v1.0, and v0.3 through the SDK's legacy layer), the dialect read from its card or forced with
 * --a2a-version; writing into a closed pipe; and the push commands against the router.
 */
import { spawn } from "node:child_process";
import { afterAll, beforeAll, describe, expect, jest, test } from "@jest/globals";
import { startRouter, type RunningRouter } from "../../router/index.js";
import { SdkAgent } from "../interop/sdk-agent.js";
import { BIN, ensureBuilt, ROOT } from "./build.js";
import { cli, CliProcess, jsonLines } from "./run-cli.js";

jest.setTimeout(90_000);

let sdk: SdkAgent;
let env: Record<string, string | undefined>;

beforeAll(async () => {
  await ensureBuilt();
  sdk = await new SdkAgent({ streaming: true, legacyCompat: true }).start();
  // No router anywhere: the default --url must not be what is reached.
  env = { A2A_ROUTER_URL: sdk.url, A2A_ROUTER_API_KEY: undefined, A2A_ROUTER_A2A_VERSION: undefined };
}, 300_000);

afterAll(async () => {
  await sdk?.stop();
});

/** The task id of a send's --json answer, in either dialect. */
function sentTaskId(stdout: string): string {
  const [result] = jsonLines(stdout);
  return result.task?.id ?? result.id;
}

/** The calls the agent received since `from`, as [method, A2A-Version]. */
const callsSince = (from: number) => sdk.calls.slice(from).map((c) => [c.method, c.version]);

describe.each([
  ["read from the card (v1.0)", [] as string[], "v1.0"],
  ["forced to 1.0", ["--a2a-version", "1.0"], "v1.0"],
  ["forced to 0.3", ["--a2a-version", "0.3"], "v0.3"],
])("an @a2a-js/sdk agent, dialect %s", (_name, flags, dialect) => {
  const methods =
    dialect === "v1.0"
      ? { send: "SendMessage", stream: "SendStreamingMessage", get: "GetTask", cancel: "CancelTask", version: "1.0" }
      : { send: "message/send", stream: "message/stream", get: "tasks/get", cancel: "tasks/cancel", version: "0.3" };

  test("send prints the answer, then the artifact text it does not contain; exit 0", async () => {
    const from = sdk.calls.length;
    const r = await cli(["send", ...flags, "hello"], { env });
    expect(r).toMatchObject({ code: 0, stdout: "done\nHELLO\n", stderr: "" });
    expect(callsSince(from)).toEqual([[methods.send, methods.version]]);
  });

  test("stream: the answer on stdout, progress and the other artifacts on stderr", async () => {
    const from = sdk.calls.length;
    const r = await cli(["stream", ...flags, "big", "world"], { env });
    expect(r).toMatchObject({ code: 0, stdout: "done\n", stderr: "working on: big world\nshout: BIG WORLD\n" });
    expect(callsSince(from)).toEqual([[methods.stream, methods.version]]);
  });

  test("stream --json prints each event's result as the agent sent it", async () => {
    const r = await cli(["stream", ...flags, "--json", "hi"], { env });
    expect(r.code).toBe(0);
    const events = jsonLines(r.stdout);
    if (dialect === "v1.0") {
      expect(events[0]).toHaveProperty("task");
      expect(events.at(-1)).toMatchObject({ statusUpdate: { status: { state: "TASK_STATE_COMPLETED" } } });
    } else {
      expect(events.at(-1)).toMatchObject({ kind: "status-update", final: true, status: { state: "completed" } });
    }
  });

  test("get prints the task by the id the agent made; exit by its state", async () => {
    const sent = await cli(["send", ...flags, "--json", "got"], { env });
    const id = sentTaskId(sent.stdout);
    const from = sdk.calls.length;
    const r = await cli(["get", id, ...flags], { env });
    expect(r).toMatchObject({ code: 0, stdout: `task ${id}: completed\ndone\nGOT\n` });
    expect(callsSince(from)).toEqual([[methods.get, methods.version]]);
    expect((await cli(["get", "no-such-task", ...flags], { env })).code).toBe(1);
  });

  test("cancel ends a running task: exit 0, and the stream following it exits 3", async () => {
    const streaming = new CliProcess(["stream", ...flags, "--json", "hang"], { env });
    await streaming.untilStdout((s) => s.includes("working on: hang"));
    const id = jsonLines(streaming.stdout)
      .map((e) => e.task?.id ?? e.id ?? e.taskId ?? e.statusUpdate?.taskId)
      .find(Boolean);
    const r = await cli(["cancel", id, ...flags], { env });
    expect(r).toMatchObject({ code: 0, stdout: `task ${id}: canceled\n` });
    expect((await streaming.done).code).toBe(3);
  });
});

describe("an agent whose card says it does not stream", () => {
  let quiet: SdkAgent;
  beforeAll(async () => {
    quiet = await new SdkAgent({ streaming: false }).start();
  });
  afterAll(() => quiet?.stop());

  test("stream sends a blocking SendMessage and prints its answer", async () => {
    const r = await cli(["stream", "--url", quiet.url, "hi"], { env });
    expect(r).toMatchObject({ code: 0, stdout: "done\n", stderr: "shout: HI\n" });
    expect(quiet.calls.map((c) => [c.method, c.version])).toEqual([["SendMessage", "1.0"]]);
  });
});

describe("card and list", () => {
  test("card prints the agent card; --json on one line", async () => {
    const r = await cli(["card"], { env });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ name: "SDK shouter", supportedInterfaces: expect.any(Array) });
    expect(r.stderr).toBe(`card: ${sdk.url}/.well-known/agent-card.json\n`);
    const json = await cli(["card", "--json"], { env });
    expect(jsonLines(json.stdout)).toEqual([expect.objectContaining({ name: "SDK shouter" })]);
  });

  test("list prints one task a line; --state and --page-size filter and page; --json the response", async () => {
    const ids = [];
    for (const word of ["one", "two"]) ids.push(sentTaskId((await cli(["send", "--json", word], { env })).stdout));
    const all = await cli(["list", "--state", "completed"], { env });
    expect(all.code).toBe(0);
    for (const id of ids) expect(all.stdout).toMatch(new RegExp(`^${id}  completed  `, "m"));
    expect(all.stdout).not.toMatch(/ {2}(working|canceled) {2}/);

    const page = await cli(["list", "--page-size", "1"], { env });
    expect(page.stdout.trim().split("\n")).toHaveLength(1);
    const token = /^more: --page-token (\S+)$/m.exec(page.stderr)?.[1];
    expect(token).toBeDefined();
    const next = await cli(["list", "--page-size", "1", "--page-token", token!], { env });
    expect(next.code).toBe(0);
    expect(next.stdout).not.toBe(page.stdout);

    const json = await cli(["list", "--json", "--page-size", "2"], { env });
    expect(jsonLines(json.stdout)[0]).toMatchObject({ tasks: expect.any(Array) });
  });

  test("list is v1.0 only: forced to 0.3 it is a usage error", async () => {
    const r = await cli(["list", "--a2a-version", "0.3"], { env });
    expect(r).toMatchObject({ code: 2, stdout: "" });
    expect(r.stderr).toContain("not part of A2A v0.3");
  });

  test("a bad --a2a-version is a usage error", async () => {
    const r = await cli(["get", "t", "--a2a-version", "2.0"], { env });
    expect(r).toMatchObject({ code: 2, stderr: 'a2a-router: --a2a-version must be 0.1, 0.3 or 1.0, got "2.0"\n' });
  });
});

describe("writing to a closed pipe", () => {
  test("`get ... | head -c 1` ends quietly with the exit code of the task's state", async () => {
    const id = sentTaskId((await cli(["send", "--json", "piped"], { env })).stdout);
    const canceled = await new Promise<{ out: string; err: string; code: number | null }>((resolve) => {
      // The CLI's own exit code, printed by the subshell on stderr (sh has no pipefail).
      const child = spawn("sh", ["-c", `("${process.execPath}" "${BIN}" get "${id}" --url "${sdk.url}"; echo "exit=$?" >&2) | head -c 1`], { cwd: ROOT });
      let out = "";
      let err = "";
      child.stdout.on("data", (d) => (out += d));
      child.stderr.on("data", (d) => (err += d));
      child.on("close", (code) => resolve({ out, err, code }));
    });
    expect(canceled.out).toBe("t");
    expect(canceled.err).toBe("exit=0\n");
  });

  test("a reader gone before anything is written: no stack trace, the state's exit code (stdout and stderr)", async () => {
    const streaming = new CliProcess(["stream", "--json", "hang"], { env });
    await streaming.untilStdout((s) => s.includes("working on: hang"));
    const id = jsonLines(streaming.stdout)[0].task.id as string;
    await cli(["cancel", id], { env });
    await streaming.done;

    const run = (closeStderr: boolean) =>
      new Promise<{ code: number | null; stderr: string }>((resolve) => {
        const child = spawn(process.execPath, [BIN, "get", id, "--url", sdk.url], { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"] });
        // Nobody reads: every write the CLI makes meets EPIPE.
        child.stdout.destroy();
        if (closeStderr) child.stderr.destroy();
        let stderr = "";
        child.stderr.on("data", (d) => (stderr += d));
        child.on("close", (code) => resolve({ code, stderr }));
      });
    // A canceled task exits 3; an unhandled EPIPE would exit 1 with a stack on stderr.
    expect(await run(false)).toEqual({ code: 3, stderr: "" });
    expect((await run(true)).code).toBe(3);
  });
});

describe("push commands against the router", () => {
  let router: RunningRouter;
  let renv: Record<string, string | undefined>;
  beforeAll(async () => {
    router = await startRouter({ port: 0, store: "memory", eliza: false });
    renv = { A2A_ROUTER_URL: router.url, A2A_ROUTER_API_KEY: undefined, A2A_ROUTER_A2A_VERSION: undefined };
  });
  afterAll(() => router?.close());

  test("v0.1 (the router's root): set and get the task's one config", async () => {
    await cli(["send", "--agent", "echo", "--task", "push-1", "hi"], { env: renv });
    const set = await cli(["push", "set", "--task", "push-1", "--push-url", "http://127.0.0.1:9/hook", "--push-token", "tok"], { env: renv });
    expect(set).toMatchObject({ code: 0, stdout: "push-1  -  http://127.0.0.1:9/hook  (token set)\n", stderr: "" });
    const got = await cli(["push", "get", "push-1", "--json"], { env: renv });
    expect(jsonLines(got.stdout)).toEqual([
      { id: "push-1", pushNotificationConfig: expect.objectContaining({ url: "http://127.0.0.1:9/hook", token: "tok" }) },
    ]);
    // v0.1 has no list or delete: the router's root is asked in v1.0, which has both.
    const list = await cli(["push", "list", "push-1"], { env: renv });
    expect(list.code).toBe(0);
    const [line] = list.stdout.split("\n");
    expect(line).toMatch(/^push-1 {2}\S+ {2}http:\/\/127\.0\.0\.1:9\/hook {2}\(token set\)$/);
    const configId = line!.split("  ")[1]!;
    const deleted = await cli(["push", "delete", "push-1", "--config-id", configId], { env: renv });
    expect(deleted.code).toBe(0);
    expect((await cli(["push", "list", "push-1"], { env: renv })).stderr).toBe("no push notification configs\n");
    const forced = await cli(["push", "list", "push-1", "--a2a-version", "0.1"], { env: renv });
    expect(forced.code).toBe(2);
    expect(forced.stderr).toContain("not part of A2A v0.1");
  });

  test("list on the router's root speaks v1.0 ListTasks", async () => {
    await cli(["send", "--agent", "echo", "--task", "listed-1", "hi"], { env: renv });
    const r = await cli(["list", "--state", "completed"], { env: renv });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^listed-1 {2}completed {2}/m);
  });

  test.each([["1.0"], ["0.3"]])("v%s on an agent's endpoint: set, list, get by id, delete", async (version) => {
    const url = `${router.url}/agents/echo`;
    const flags = ["--url", url, "--a2a-version", version];
    const id = sentTaskId((await cli(["send", ...flags, "--json", "hi"], { env: renv })).stdout);
    const set = await cli(["push", "set", id, ...flags, "--push-url", "http://127.0.0.1:9/a", "--config-id", "cfg-a"], { env: renv });
    expect(set).toMatchObject({ code: 0, stdout: `${id}  cfg-a  http://127.0.0.1:9/a\n` });
    await cli(["push", "set", id, ...flags, "--push-url", "http://127.0.0.1:9/b", "--config-id", "cfg-b"], { env: renv });
    const list = await cli(["push", "list", id, ...flags], { env: renv });
    expect(list.stdout.split("\n").filter(Boolean).sort()).toEqual([`${id}  cfg-a  http://127.0.0.1:9/a`, `${id}  cfg-b  http://127.0.0.1:9/b`]);
    const got = await cli(["push", "get", id, ...flags, "--config-id", "cfg-b"], { env: renv });
    expect(got).toMatchObject({ code: 0, stdout: `${id}  cfg-b  http://127.0.0.1:9/b\n` });
    const deleted = await cli(["push", "delete", id, ...flags, "--config-id", "cfg-a"], { env: renv });
    expect(deleted).toMatchObject({ code: 0, stdout: `deleted push notification config cfg-a of task ${id}\n` });
    const after = await cli(["push", "list", id, ...flags], { env: renv });
    expect(after.stdout).toBe(`${id}  cfg-b  http://127.0.0.1:9/b\n`);
  });

  test("push set needs --push-url; push delete needs --config-id", async () => {
    expect((await cli(["push", "set", "t"], { env: renv })).stderr).toContain("--push-url is required");
    const del = await cli(["push", "delete", "t", "--a2a-version", "1.0"], { env: renv });
    expect(del).toMatchObject({ code: 2 });
    expect(del.stderr).toContain("--config-id is required");
  });
});
