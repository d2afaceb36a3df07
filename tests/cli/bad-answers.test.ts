/**
 * The CLI against a server whose answers are not A2A: each is checked against its dialect's result schema
 * (the one the router reads its upstream agents with) before the dialect's translators read it, so the
 * command fails with exit 1 and a message naming the field, never a JavaScript error's text.
 */
import { afterAll, beforeAll, describe, expect, jest, test } from "@jest/globals";
import { createServer, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { ensureBuilt } from "./build.js";
import { cli } from "./run-cli.js";

jest.setTimeout(90_000);

/** What the server answers every JSON-RPC call with, by path (`/<name>`); SSE when the answer is a list. */
const ANSWERS: Record<string, unknown> = {
  "state-01": { id: "t", status: { state: "bogus" }, artifacts: [] },
  "part-03": {
    kind: "task",
    id: "t",
    contextId: "c",
    status: { state: "completed", message: { kind: "message", messageId: "m", role: "agent", parts: [{ kind: "text" }] } },
  },
  "none-10": { statusUpdate: { status: { state: "TASK_STATE_COMPLETED" } } },
  "stream-10": [
    { statusUpdate: { taskId: "t", contextId: "c", status: { state: "TASK_STATE_WORKING" } } },
    { artifactUpdate: { taskId: "t", artifact: { artifactId: "a", parts: [{ foo: 1 }] } } },
  ],
  "list-10": { tasks: [{ id: "t", status: {} }] },
};

/** One SSE event that does not end within the CLI's bound (64 Mi characters), written 1 MB at a time. */
async function endlessEvent(res: ServerResponse): Promise<void> {
  res.writeHead(200, { "content-type": "text/event-stream" });
  res.write("data: ");
  const mb = "x".repeat(1024 * 1024);
  for (let i = 0; i < 70 && !res.destroyed; i++) {
    if (!res.write(mb)) await new Promise((r) => res.once("drain", r).once("close", r));
  }
  res.end();
}

let server: Server;
let base: string;

beforeAll(async () => {
  await ensureBuilt();
  server = createServer((req, res) => {
    if (req.method === "POST" && req.url === "/endless-event") return void endlessEvent(res);
    const answer = ANSWERS[(req.url ?? "").slice(1)];
    if (req.method !== "POST" || answer === undefined) return void res.writeHead(404).end();
    let body = "";
    req.on("data", (c: Buffer) => (body += c));
    req.on("end", () => {
      const id = (JSON.parse(body) as { id: unknown }).id;
      const envelope = (result: unknown) => JSON.stringify({ jsonrpc: "2.0", id, result });
      if (!Array.isArray(answer)) return void res.writeHead(200, { "content-type": "application/json" }).end(envelope(answer));
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.end(answer.map((r) => `data: ${envelope(r)}\n\n`).join(""));
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}, 300_000);

afterAll(async () => {
  await new Promise((r) => server.close(r));
});

const run = (name: string, version: string, args: string[]) =>
  cli([...args, "--url", `${base}/${name}`, "--a2a-version", version], { env: { A2A_ROUTER_API_KEY: undefined } });

describe("an answer that is not in the target's dialect", () => {
  test.each([
    [
      "state-01",
      "0.1",
      ["get", "t"],
      'the target\'s answer is not A2A v0.1: status.state must be one of "submitted", "working", "input-required", "completed", "canceled", "failed", "unknown"',
    ],
    ["part-03", "0.3", ["send", "hi"], "the target's answer is not A2A v0.3: status.message.parts[0].text is required"],
    ["none-10", "1.0", ["send", "hi"], "the target's answer is not A2A v1.0: the answer must have exactly one of task, message"],
    [
      "stream-10",
      "1.0",
      ["stream", "hi"],
      "the target's answer is not A2A v1.0: artifactUpdate.artifact.parts[0] must have exactly one of text, raw, url, data",
    ],
    ["list-10", "1.0", ["list"], "the target's answer is not A2A v1.0: tasks[0].status.state is required"],
  ])("%s (A2A %s, %j): exit 1 naming the field", async (name, version, args, message) => {
    const r = await run(name, version, args as string[]);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(`a2a-router: ${message}\n`);
  });

  test("--json prints the answers that passed, not the one that did not", async () => {
    const r = await run("stream-10", "1.0", ["stream", "--json", "hi"]);
    expect(r.code).toBe(1);
    expect(
      r.stdout
        .trim()
        .split("\n")
        .map((line) => JSON.parse(line)),
    ).toEqual([(ANSWERS["stream-10"] as unknown[])[0]]);
    expect(r.stderr).toMatch(/^a2a-router: the target's answer is not A2A v1.0: artifactUpdate\.artifact\.parts\[0\]/);
  });

  test("an SSE event that never ends within 64 Mi characters: exit 1 saying so, the CLI's memory bounded", async () => {
    const r = await run("endless-event", "1.0", ["stream", "hi"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe("a2a-router: an event from the router is larger than 67108864 characters\n");
  });
});

describe("where the card says to go", () => {
  // Another host: its only card is at its origin and names a v1.0 interface on the first host; any call made
  // to it directly is answered with a v0.1 task.
  let cardHost: Server;
  let hostUrl: string;
  beforeAll(async () => {
    const card = { name: "origin", supportedInterfaces: [{ url: `${base}/none-10`, protocolBinding: "JSONRPC", protocolVersion: "1.0" }] };
    cardHost = createServer((req, res) => {
      if (req.method === "GET" && req.url === "/.well-known/agent-card.json") {
        return void res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(card));
      }
      if (req.method !== "POST") return void res.writeHead(404).end();
      const task = { id: "t", status: { state: "completed", message: { role: "agent", parts: [{ type: "text", text: "from --url" }] } } };
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ jsonrpc: "2.0", id: 1, result: task }));
    });
    await new Promise<void>((r) => cardHost.listen(0, "127.0.0.1", r));
    hostUrl = `http://127.0.0.1:${(cardHost.address() as AddressInfo).port}/some/deeper/path`;
  });
  afterAll(async () => {
    await new Promise((r) => cardHost.close(r));
  });
  const env = { A2A_ROUTER_API_KEY: undefined, A2A_ROUTER_A2A_VERSION: undefined };

  test("a card found only at the target's origin (where the router looks too) picks the dialect and its endpoint", async () => {
    const r = await cli(["send", "--url", hostUrl, "hi"], { env });
    expect(r.code).toBe(1);
    expect(r.stderr).toBe("a2a-router: the target's answer is not A2A v1.0: the answer must have exactly one of task, message\n");
  });

  test("--a2a-version for a dialect the card does not list is spoken at --url, not at another dialect's endpoint", async () => {
    const r = await cli(["get", "t", "--a2a-version", "0.1", "--url", hostUrl], { env });
    expect(r).toMatchObject({ code: 0, stdout: "task t: completed\nfrom --url\n" });
  });

  test("card: where no location has one, the message names them all", async () => {
    const r = await cli(["card", "--url", `${base}/nowhere`], { env });
    expect(r).toMatchObject({ code: 1, stdout: "" });
    expect(r.stderr).toBe(`a2a-router: no agent card at ${base}/nowhere/.well-known/agent-card.json or agent.json or at ${base}\n`);
  });
});
