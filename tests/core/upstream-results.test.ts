import { afterAll, beforeAll, describe, expect, test } from "@jest/globals";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { RunningRouter } from "../../router/index.js";
import { openStream, rpc, statusText, userMessage, type SseEvent } from "../helpers/rpc.js";
import { testRouter } from "../helpers/router.js";

/**
 * An upstream agent's answers are checked against its dialect's result schema (schemas/a2a-results.schema.json)
 * before they are read: a malformed one fails the turn with a message naming the field, and nothing of it is
 * stored or relayed. Each agent here is a real HTTP server answering every call with a scripted SSE stream
 * (or a plain JSON result) in its dialect's JSON-RPC envelope.
 */

interface Script {
  protocol: "0.1" | "0.3" | "1.0";
  /** SSE results in order, or one JSON result (read as a blocking send's). */
  answer: { sse: unknown[] } | { json: unknown };
}

const working03 = { kind: "status-update", taskId: "up-1", contextId: "c", final: false, status: { state: "working" } };

const SCRIPTS: Record<string, Script> = {
  "state-03": { protocol: "0.3", answer: { sse: [working03, { ...working03, status: { state: 7 } }] } },
  "part-10": {
    protocol: "1.0",
    answer: { sse: [{ artifactUpdate: { taskId: "up-1", contextId: "c", artifact: { artifactId: "a", parts: [{ foo: 1 }] } } }] },
  },
  "none-10": { protocol: "1.0", answer: { json: { statusUpdate: { status: { state: "TASK_STATE_COMPLETED" } } } } },
  "state-01": { protocol: "0.1", answer: { json: { id: "x", status: { state: "bogus" } } } },
  "text-03": {
    protocol: "0.3",
    answer: { sse: [{ kind: "artifact-update", taskId: "up-1", contextId: "c", artifact: { artifactId: "a", parts: [{ kind: "text" }] } }] },
  },
};

let server: Server;
let router: RunningRouter;

beforeAll(async () => {
  server = createServer((req, res) => {
    const name = (req.url ?? "").split("/")[2] ?? "";
    const script = SCRIPTS[name];
    if (req.method !== "POST" || !script) return void res.writeHead(404).end();
    let body = "";
    req.on("data", (c: Buffer) => (body += c));
    req.on("end", () => {
      const id = (JSON.parse(body) as { id: unknown }).id;
      const envelope = (result: unknown) => JSON.stringify({ jsonrpc: "2.0", id, result });
      if ("json" in script.answer) return void res.writeHead(200, { "content-type": "application/json" }).end(envelope(script.answer.json));
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.end(script.answer.sse.map((r) => `data: ${envelope(r)}\n\n`).join(""));
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/agents`;
  router = await testRouter({
    config: { agents: Object.entries(SCRIPTS).map(([name, s]) => ({ id: name, url: `${base}/${name}`, protocol: s.protocol })) },
  });
});

afterAll(async () => {
  await router.close();
  await new Promise((r) => server.close(r));
});

async function streamTo(agent: string): Promise<SseEvent[]> {
  const s = await openStream(router.url, "tasks/sendSubscribe", { id: `t-${agent}`, message: userMessage("hi"), metadata: { agent } });
  return s.all();
}

describe("an upstream result not in its dialect's shape", () => {
  test("fails the turn naming the field; what came before it is kept, nothing of it is stored", async () => {
    const events = await streamTo("state-03");
    expect(events.map((e) => e.data.result.status?.state)).toEqual(["working", "failed"]);
    expect(events[1]!.data.result.final).toBe(true);
    expect(statusText(events[1]!)).toBe("Upstream agent state-03 sent a result that is not A2A v0.3: status.state must be string");
    const task = await rpc(router.url, "tasks/get", { id: "t-state-03" });
    expect(task.result.status.state).toBe("failed");
  });

  test("a v1.0 part with none of text, raw, url, data says so, and no artifact reaches the client", async () => {
    const events = await streamTo("part-10");
    expect(events).toHaveLength(1);
    expect(statusText(events[0]!)).toBe(
      "Upstream agent part-10 sent a result that is not A2A v1.0: artifactUpdate.artifact.parts[0] must have exactly one of text, raw, url, data",
    );
    const task = await rpc(router.url, "tasks/get", { id: "t-part-10" });
    expect(task.result.artifacts ?? []).toEqual([]);
  });

  test("a v0.3 text part without its text is refused before it could be rendered as invalid A2A", async () => {
    const events = await streamTo("text-03");
    expect(statusText(events[events.length - 1]!)).toBe("Upstream agent text-03 sent a result that is not A2A v0.3: artifact.parts[0].text is required");
  });

  test("blocking answers are checked too: a v1.0 SendMessageResponse that is neither task nor message, a v0.1 state", async () => {
    const cases: Array<[string, string]> = [
      ["none-10", "Upstream agent none-10 sent a result that is not A2A v1.0: result must have exactly one of task, message"],
      [
        "state-01",
        'Upstream agent state-01 sent a result that is not A2A v0.1: status.state must be one of "submitted", "working", "input-required", "completed", "canceled", "failed", "unknown"',
      ],
    ];
    for (const [agent, reason] of cases) {
      const r = await rpc(router.url, "tasks/send", { id: `s-${agent}`, message: userMessage("hi"), metadata: { agent } });
      expect(r.result.status.state).toBe("failed");
      expect(r.result.status.message.parts[0].text).toBe(reason);
    }
  });
});
