import { afterEach, describe, expect, jest, test } from "@jest/globals";
import { createServer, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { configFromEnv, resolveConfig } from "../../router/config/load.js";
import type { RunningRouter } from "../../router/index.js";
import { SchemaRegistry } from "../../router/schema/validator.js";
import { Retrier, retryDelay } from "../../router/upstream/retry.js";
import { getJson, openStream, rpc, statusText, userMessage } from "../helpers/rpc.js";
import { testRouter } from "../helpers/router.js";
import { V01Upstream } from "../helpers/v01-upstream.js";
import { until } from "../interop/helpers.js";

/** CONTRACT 13 (upstream liveness) and the upstream idle limit, against real loopback servers. */

const cleanup: Array<() => Promise<unknown> | unknown> = [];
afterEach(async () => {
  for (const f of cleanup.splice(0).reverse()) await f();
});

/** A free loopback port: bound, noted, released (the agent that later binds it comes up after the router). */
async function reservePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, "127.0.0.1", r));
  const { port } = s.address() as AddressInfo;
  await new Promise((r) => s.close(r));
  return port;
}

async function listen(server: Server): Promise<string> {
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  cleanup.push(() => {
    server.closeAllConnections();
    return new Promise((r) => server.close(r));
  });
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

async function router(agents: Array<{ id: string; url: string }>, limits: Record<string, number> = {}): Promise<RunningRouter> {
  const r = await testRouter({ config: { agents, limits }, eliza: false, upstream: { retry: { initialMs: 20, maxMs: 200 } } });
  cleanup.push(() => r.close());
  return r;
}

const online = async (r: RunningRouter, id: string): Promise<boolean> =>
  (await getJson(r.url + "/agents")).agents.find((a: { id: string }) => a.id === id).online;

describe("retry backoff", () => {
  test("exponential from initialMs, capped at maxMs, jittered within the upper half", () => {
    const policy = { initialMs: 100, maxMs: 1000 };
    expect([0, 1, 2, 3, 4, 10].map((n) => retryDelay(n, policy, () => 1))).toEqual([100, 200, 400, 800, 1000, 1000]);
    expect([0, 1, 2, 3, 4, 10].map((n) => retryDelay(n, policy, () => 0))).toEqual([50, 100, 200, 400, 500, 500]);
  });

  test("a Retrier tries again until the task succeeds, and tries no more once stopped", async () => {
    jest.useFakeTimers();
    try {
      let tries = 0;
      const retrier = new Retrier(async () => ++tries >= 3, { initialMs: 100, maxMs: 100 });
      retrier.schedule();
      for (let i = 0; i < 3; i++) await jest.advanceTimersByTimeAsync(100);
      expect(tries).toBe(3);
      expect(retrier.pending).toBe(false);

      const stopped = new Retrier(
        async () => {
          ++tries;
          return false;
        },
        { initialMs: 100, maxMs: 100 },
      );
      stopped.schedule();
      stopped.stop();
      await jest.advanceTimersByTimeAsync(1000);
      expect(tries).toBe(3);
      expect(stopped.pending).toBe(false);
    } finally {
      jest.useRealTimers();
    }
  });
});

describe("an upstream agent that is down at start-up", () => {
  test("is offline (sends get -32050) until it comes up; then online, and a send works", async () => {
    const port = await reservePort();
    const r = await router([{ id: "late", url: `http://127.0.0.1:${port}` }]);
    expect(await online(r, "late")).toBe(false);
    const refused = await rpc(r.url, "tasks/send", { id: "late-1", message: userMessage("hi"), metadata: { agent: "late" } });
    expect(refused.error).toMatchObject({ code: -32050, data: { agent: "late" } });

    const agent = await new V01Upstream({ streaming: true }).start(port);
    cleanup.push(() => agent.stop());
    await until(() => online(r, "late"), "the late agent to be online");
    const agents = (await getJson(r.url + "/agents")).agents;
    expect(agents.find((a: { id: string }) => a.id === "late")).toMatchObject({ online: true, name: "Upstream v0.1" });
    const sent = await rpc(r.url, "tasks/send", { id: "late-2", message: userMessage("hi"), metadata: { agent: "late" } });
    expect(sent.result.status.state).toBe("completed");
  });

  test("an agent that goes away is offline again, and back once it returns", async () => {
    const port = await reservePort();
    let agent = await new V01Upstream({ streaming: true }).start(port);
    const r = await router([{ id: "flaky", url: agent.url }]);
    expect(await online(r, "flaky")).toBe(true);
    await agent.stop();
    const failed = await rpc(r.url, "tasks/send", { id: "flaky-1", message: userMessage("hi"), metadata: { agent: "flaky" } });
    expect(failed.result.status.state).toBe("failed");
    expect(failed.result.status.message.parts[0].text).toBe("Upstream agent flaky is unreachable (ECONNREFUSED)");
    expect(await online(r, "flaky")).toBe(false);
    agent = await new V01Upstream({ streaming: true }).start(port);
    cleanup.push(() => agent.stop());
    await until(() => online(r, "flaky"), "the agent to be back online");
  });
});

describe("upstream HTTP errors", () => {
  test("an HTML 404 page never reaches the client: the failure says the status and its reason", async () => {
    const html = "<!DOCTYPE html><html><head><title>404</title></head><body><h1>Not Found</h1><p>nginx</p></body></html>";
    const url = await listen(
      createServer((_req, res) => {
        res.writeHead(404, { "content-type": "text/html" });
        res.end(html);
      }),
    );
    const r = await router([{ id: "html", url }]);
    // Its server answers (every card location with 404): reachable, a card-less v0.1 agent.
    expect(await online(r, "html")).toBe(true);
    const sent = await rpc(r.url, "tasks/send", { id: "html-1", message: userMessage("hi"), metadata: { agent: "html" } });
    expect(sent.result.status.state).toBe("failed");
    const text = sent.result.status.message.parts[0].text as string;
    expect(text).toBe("Upstream agent html answered HTTP 404 Not Found");
    expect(JSON.stringify(sent)).not.toMatch(/<|DOCTYPE|nginx/);
  });
});

describe("upstream idle limit (limits.upstreamIdleMs)", () => {
  /** A v0.1 agent that streams one working event, then `rest` decides. */
  function agentServer(rest: (res: ServerResponse, send: (result: object) => void, id: string) => void): Server {
    return createServer((req, res) => {
      if (req.method === "GET") {
        res.writeHead(404).end();
        return;
      }
      let raw = "";
      req.on("data", (c) => (raw += c));
      req.on("end", () => {
        const { id, params } = JSON.parse(raw);
        res.writeHead(200, { "content-type": "text/event-stream" });
        const send = (result: object) => res.write(`data: ${JSON.stringify({ jsonrpc: "2.0", id, result })}\n\n`);
        send({ id: params.id, status: { state: "working", message: { role: "agent", parts: [{ type: "text", text: "thinking" }] } }, final: false });
        rest(res, send, params.id);
      });
    });
  }

  test("a stream silent longer than the limit fails its task with a message saying so", async () => {
    const url = await listen(agentServer(() => undefined)); // then nothing, connection open
    const r = await router([{ id: "silent", url }], { upstreamIdleMs: 300 });
    const s = await openStream(r.url, "tasks/sendSubscribe", { id: "idle-1", message: userMessage("hi"), metadata: { agent: "silent" } });
    const events = await s.all();
    expect(events.map((e) => e.data.result.status?.state)).toEqual(["working", "failed"]);
    expect(events.at(-1)!.data.result.final).toBe(true);
    expect(statusText(events.at(-1)!)).toBe("Upstream agent silent sent nothing for 300 ms; its stream was given up");
  });

  test("comments (an upstream's heartbeats) keep a stream alive past the limit", async () => {
    const url = await listen(
      agentServer((res, send, id) => {
        let pings = 0;
        const timer = setInterval(() => {
          res.write(": ping\n\n");
          if (++pings < 12) return;
          clearInterval(timer);
          send({ id, status: { state: "completed", message: { role: "agent", parts: [{ type: "text", text: "done" }] } }, final: true });
          res.end();
        }, 50);
        res.on("close", () => clearInterval(timer));
      }),
    );
    const r = await router([{ id: "pinging", url }], { upstreamIdleMs: 400 });
    const s = await openStream(r.url, "tasks/sendSubscribe", { id: "idle-2", message: userMessage("hi"), metadata: { agent: "pinging" } });
    const events = await s.all();
    expect(events.map((e) => e.data.result.status?.state)).toEqual(["working", "completed"]);
  });

  test("config: default 300000, env UPSTREAM_IDLE_MS, at most 300000 (Node's fetch gives up on a silent body at 300 s)", () => {
    const schemas = new SchemaRegistry();
    expect(resolveConfig(schemas, {}).limits.upstreamIdleMs).toBe(300_000);
    expect(resolveConfig(schemas, { file: { limits: { maxBodyBytes: 10 } }, env: configFromEnv({ UPSTREAM_IDLE_MS: "1500" }) }).limits).toMatchObject({
      maxBodyBytes: 10,
      upstreamIdleMs: 1500,
    });
    expect(() => resolveConfig(schemas, { file: { limits: { upstreamIdleMs: 300_001 } } })).toThrow(/upstreamIdleMs/);
  });
});
