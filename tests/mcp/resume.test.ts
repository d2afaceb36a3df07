/**
 * CONTRACT 16 resumability: a host whose connection drops mid-call reconnects with Last-Event-ID and gets
 * every message it missed exactly once, then the rest of the call, from the task log: on the same instance,
 * and on another instance of a cluster (which rebuilds the session from its id alone).
 */
import { afterAll, beforeAll, describe, expect, test } from "@jest/globals";
import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type CallToolResult, CallToolResultSchema } from "@modelcontextprotocol/sdk/types.js";
import { startRouter, type RunningRouter } from "../../router/index.js";
import { SteppedAgent } from "../chat/helpers.js";
import { deleteKeys, REDIS_URL } from "../helpers/redis.js";
import { until } from "../helpers/until.js";
import { connectMcp, TestNetwork, texts } from "./helpers.js";

/** The client retries quickly (the SDK's default waits a second). */
const RECONNECT = { initialReconnectionDelay: 10, maxReconnectionDelay: 50, reconnectionDelayGrowFactor: 1, maxRetries: 20 };

/** Drives one call of the stepped agent through a dropped connection; returns what the client saw. */
async function dropMidCall(router: RunningRouter, stepped: SteppedAgent, net: TestNetwork, onDropped: () => void = () => {}) {
  stepped.reset();
  const peer = await connectMcp(router.url, { fetch: net.fetch, reconnect: RECONNECT });
  const progress: string[] = [];
  const call = peer.client.callTool({ name: "stepper", arguments: { message: "again" } }, undefined, {
    onprogress: (p) => void progress.push(p.message ?? ""),
  });
  await until(() => progress.length === 1);
  // The connection drops; while it is down, the agent goes on (its next status is logged, unseen).
  net.hold();
  net.cut();
  onDropped();
  const [task] = await router.engine.listTasks({ agentId: "stepper", limit: 1 });
  const seen = task!.lastSeq;
  stepped.release("step-1");
  await until(async () => ((await router.engine.getTask(task!.id))?.lastSeq ?? 0) > seen);
  net.release();
  await until(() => progress.length === 2);
  stepped.release("step-2");
  const result = (await call) as CallToolResult;
  return { peer, progress, result, taskId: task!.id };
}

describe("one instance", () => {
  let router: RunningRouter;
  let stepped: SteppedAgent;

  beforeAll(async () => {
    router = await startRouter({ host: "127.0.0.1", port: 0, store: "memory", config: { hub: { allowAnonymous: true } } });
    stepped = new SteppedAgent(`${router.url.replace(/^http/, "ws")}/hub`, "stepper");
    await stepped.agent.ready;
  });

  afterAll(async () => {
    await stepped.agent.close();
    await router.close();
  });

  test("a dropped call stream resumes with Last-Event-ID: every notification once, then the result", async () => {
    const net = new TestNetwork();
    const { peer, progress, result, taskId } = await dropMidCall(router, stepped, net);
    try {
      expect(progress).toEqual(["Looking things up", "Writing the answer"]);
      expect(texts(result)).toEqual(["Hello again!"]);
      expect(result.structuredContent).toMatchObject({ taskId, state: "completed" });
      expect(net.resumes).toHaveLength(1);
      expect(net.resumes[0]).toMatch(/^c1\./);
    } finally {
      await peer.close();
    }
  });
});

describe("a host that restarts", () => {
  let router: RunningRouter;
  let stepped: SteppedAgent;

  beforeAll(async () => {
    router = await startRouter({ host: "127.0.0.1", port: 0, store: "memory", config: { hub: { allowAnonymous: true } } });
    stepped = new SteppedAgent(`${router.url.replace(/^http/, "ws")}/hub`, "stepper");
    await stepped.agent.ready;
  });

  afterAll(async () => {
    await stepped.agent.close();
    await router.close();
  });

  test("a new client with the session id and the last resumption token gets the call's result", async () => {
    stepped.reset();
    const net = new TestNetwork();
    const first = await connectMcp(router.url, { fetch: net.fetch, reconnect: { ...RECONNECT, maxRetries: 0 } });
    const sessionId = first.transport.sessionId!;
    const tokens: string[] = [];
    const call = first.client.request({ method: "tools/call", params: { name: "stepper", arguments: { message: "later" } } }, CallToolResultSchema, {
      onresumptiontoken: (t) => void tokens.push(t),
      onprogress: () => undefined,
    });
    call.catch(() => undefined);
    await until(() => tokens.length >= 2);
    // The host goes away without ending its session; the turn goes on without it.
    net.cut();
    await first.client.close();
    stepped.release("step-1");
    stepped.release("step-2");
    const second = await connectMcp(router.url, { sessionId });
    try {
      const result = await second.client.request({ method: "tools/call", params: { name: "stepper", arguments: { message: "later" } } }, CallToolResultSchema, {
        resumptionToken: tokens.at(-1)!,
      });
      expect(texts(result)).toEqual(["Hello later!"]);
    } finally {
      await second.close();
    }
  });
});

describe("one instance, before the call's first message", () => {
  let router: RunningRouter;
  let stepped: SteppedAgent;

  beforeAll(async () => {
    router = await startRouter({ host: "127.0.0.1", port: 0, store: "memory", config: { hub: { allowAnonymous: true } } });
    stepped = new SteppedAgent(`${router.url.replace(/^http/, "ws")}/hub`, "stepper");
    await stepped.agent.ready;
  });

  afterAll(async () => {
    await stepped.agent.close();
    await router.close();
  });

  test("a call without progress dropped after its priming event resumes from its task's log: the result once", async () => {
    stepped.reset();
    const net = new TestNetwork();
    const peer = await connectMcp(router.url, { fetch: net.fetch, reconnect: RECONNECT });
    try {
      const call = peer.client.callTool({ name: "stepper", arguments: { message: "quiet" } });
      await stepped.reached("status-1");
      net.cut();
      stepped.release("step-1");
      stepped.release("step-2");
      const result = (await call) as CallToolResult;
      expect(texts(result)).toEqual(["Hello quiet!"]);
      // The priming event's id already named the call's task (seq 0: before its first event).
      expect(net.resumes).toHaveLength(1);
      expect(net.resumes[0]).toMatch(/^c1\..+\.0$/);
    } finally {
      await peer.close();
    }
  });
});

describe("a restart", () => {
  test("the session is valid on the restarted router, and the call resumes from the stored log", async () => {
    const dir = mkdtempSync(join(tmpdir(), "mcp-restart-"));
    const store = `sqlite:${join(dir, "router.db")}`;
    const config = { hub: { allowAnonymous: true } };
    let router = await startRouter({ host: "127.0.0.1", port: 0, store, config });
    const port = router.port;
    const stepped = new SteppedAgent(`${router.url.replace(/^http/, "ws")}/hub`, "stepper");
    await stepped.agent.ready;
    const net = new TestNetwork();
    const peer = await connectMcp(router.url, { fetch: net.fetch, reconnect: RECONNECT });
    try {
      const progress: string[] = [];
      const call = peer.client.callTool({ name: "stepper", arguments: { message: "x" } }, undefined, {
        onprogress: (p) => void progress.push(p.message ?? ""),
      });
      await until(() => progress.length === 1);
      net.hold();
      net.cut();
      // The router goes down with the turn in flight (it fails the turn, as it says), and comes back.
      await router.close();
      router = await startRouter({ host: "127.0.0.1", port, store, config });
      net.release();
      const result = (await call) as CallToolResult;
      expect(progress).toEqual(["Looking things up"]);
      expect(result.isError).toBe(true);
      expect(result.structuredContent).toMatchObject({ state: "failed" });
      const { tools } = await peer.client.listTools();
      expect(tools.map((t) => t.name)).toContain("echo");
    } finally {
      await peer.close();
      await stepped.agent.close();
      await router.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("two instances on one Redis", () => {
  const prefix = `a2a-router-test:mcp:${randomUUID()}:`;
  let a: RunningRouter;
  let b: RunningRouter;
  let stepped: SteppedAgent;

  beforeAll(async () => {
    const config = { redisPrefix: prefix, hub: { allowAnonymous: true } };
    a = await startRouter({ host: "127.0.0.1", port: 0, store: REDIS_URL, config });
    b = await startRouter({ host: "127.0.0.1", port: 0, store: REDIS_URL, config });
    stepped = new SteppedAgent(`${a.url.replace(/^http/, "ws")}/hub`, "stepper");
    await stepped.agent.ready;
    await until(() => b.agents.find("stepper")?.isOnline() === true);
  });

  afterAll(async () => {
    await stepped.agent.close();
    await a.close();
    await b.close();
    await deleteKeys(prefix);
  });

  test("the host reconnects to the other instance: it takes the session and resumes the call from the log", async () => {
    const net = new TestNetwork();
    const { peer, progress, result } = await dropMidCall(a, stepped, net, () => {
      net.target = b.url;
    });
    try {
      expect(progress).toEqual(["Looking things up", "Writing the answer"]);
      expect(texts(result)).toEqual(["Hello again!"]);
      // The session goes on on B, which never saw its initialize.
      const { tools } = await peer.client.listTools();
      expect(tools.map((t) => t.name)).toContain("stepper");
      const echoed = (await peer.client.callTool({ name: "echo", arguments: { message: "on b" } })) as CallToolResult;
      expect(texts(echoed)).toEqual(["on b"]);
    } finally {
      await peer.close();
    }
  });
});
