import type { StreamMessage } from "../../router/rpc/index.js";
import { afterAll, beforeAll, describe, expect, test } from "@jest/globals";
import fc from "fast-check";
import { createEchoAgent } from "../../agents/echo/index.js";
import { AgentRegistry } from "../../router/agents/registry.js";
import type { PushNotificationConfig } from "../../router/core/model.js";
import { TaskEngine } from "../../router/core/engine.js";
import type { RunningRouter } from "../../router/index.js";
import { silentLogger } from "../../router/observability/logger.js";
import { parsePushUrl } from "../../router/push/url-policy.js";
import { Dispatcher } from "../../router/rpc/dispatcher.js";
import { A2ARequestHandler } from "../../router/handler/index.js";
import { TaskService, type PushService } from "../../router/service/task-service.js";
import { SchemaRegistry } from "../../router/schema/validator.js";
import { MemoryStore } from "../../router/store/index.js";
import { testRouter } from "../helpers/router.js";
import { leakIn } from "../edge/helpers.js";
import { callHeaders, FUZZ_SEED, rpcBody, taskIdsIn, withRecentTask } from "./arbitraries.js";
import { checkBody, checkSseFrames } from "./checks.js";

/**
 * JSON-RPC fuzzing (CONTRACT 12: no crash, no 5xx but 413/503, no internals in errors). Most cases are
 * in-process calls into the Dispatcher over a real engine and memory store (fast); a smaller number go over
 * real HTTP, where express, the body parser and the SSE writer are in the path too. Seeded: FUZZ_SEED
 * replays a run, and fast-check prints the seed and path of any failure.
 */

const IN_PROCESS_RUNS = Number(process.env.FUZZ_RPC_RUNS ?? 90_000);
const HTTP_RUNS = Number(process.env.FUZZ_HTTP_RUNS ?? 3_000);
/** Per fuzz test: generous, for a loaded 2-core box (the verdict never depends on it). */
const FUZZ_TIMEOUT_MS = 300_000;
/** A stream must end: echo tasks finish at once, so a stream still open after this is a hang. */
const STREAM_LIMIT_MS = 10_000;

/** Push configs kept in the store, URLs checked for form only: the fuzz must not call out anywhere. */
function storePush(store: MemoryStore): PushService {
  return {
    async set(taskId: string, config: PushNotificationConfig) {
      parsePushUrl(config.url);
      const saved = { ...config, id: config.id ?? "default" };
      await store.setPushConfig(taskId, saved);
      return saved;
    },
    list: (taskId: string) => store.getPushConfigs(taskId),
    delete: (taskId: string, configId: string) => store.deletePushConfig(taskId, configId),
  };
}

describe("dispatcher, in process", () => {
  let store: MemoryStore;
  let engine: TaskEngine;
  let dispatcher: Dispatcher;
  const internal: unknown[] = [];

  beforeAll(async () => {
    store = new MemoryStore();
    const agents = new AgentRegistry();
    agents.set(createEchoAgent());
    engine = new TaskEngine({ store, agents, logger: silentLogger(), taskTimeoutMs: 30_000 });
    const service = new TaskService({ engine, agents, defaultAgent: "echo", push: storePush(store) });
    // A failure of the router's own reaches the client as -32603, which the checks refuse: keep the cause.
    const schemas = new SchemaRegistry();
    const handler = new A2ARequestHandler({ service, schemas, extendedCard: () => ({ name: "x" }) });
    dispatcher = new Dispatcher({ handler, schemas, onInternalError: (err) => internal.push(err) });
    const first = await dispatcher.dispatch(
      { jsonrpc: "2.0", id: 1, method: "tasks/send", params: { id: "t-known", message: { role: "user", parts: [{ type: "text", text: "hi" }] } } },
      {},
    );
    expect(first.kind).toBe("json");
  });

  afterAll(async () => {
    await engine.close();
    await store.close();
  });

  /** The stream's messages as SSE `data:` lines (what checkSseFrames reads). */
  async function drain(messages: AsyncIterable<StreamMessage>, signal: AbortSignal): Promise<string> {
    let text = "";
    for await (const m of messages) {
      const data = typeof m.data === "string" ? m.data : m.data.map((p) => (typeof p === "string" ? p : Buffer.from(p).toString())).join("");
      text += `data: ${data}\n\n`;
      if (signal.aborted) throw new Error("stream did not end");
    }
    return text;
  }

  test(
    `${IN_PROCESS_RUNS} bodies in every dialect: an answer or a JSON-RPC error, never internals`,
    async () => {
      let streams = 0;
      let answers = 0;
      const known: string[] = ["t-known"];
      await fc.assert(
        fc.asyncProperty(rpcBody, callHeaders, fc.boolean(), fc.nat(), async (generated, headers, onPath, pick) => {
          const body = withRecentTask(generated, known, pick);
          const aborter = new AbortController();
          const ctx = {
            a2aVersion: headers.a2aVersion,
            lastEventId: headers.lastEventId,
            pathAgentId: onPath ? headers.pathAgentId : undefined,
            signal: aborter.signal,
          };
          const result = await dispatcher.dispatch(body, ctx);
          if (internal.length) throw new Error(`the router failed on its own: ${(internal.splice(0)[0] as Error)?.stack}`);
          if (result.kind === "json") {
            checkBody(result.body, "dispatch");
            const ids = taskIdsIn(result.body);
            if (ids.length) answers++;
            known.push(...ids);
            if (known.length > 64) known.splice(0, known.length - 64);
            return;
          }
          streams++;
          const timer = setTimeout(() => aborter.abort(), STREAM_LIMIT_MS);
          try {
            checkSseFrames(await drain(result.messages, aborter.signal), "dispatch");
          } finally {
            clearTimeout(timer);
          }
        }),
        { seed: FUZZ_SEED, numRuns: IN_PROCESS_RUNS, endOnFailure: true },
      );
      // The generators reach the engine, not only the envelope checks.
      expect(streams).toBeGreaterThan(IN_PROCESS_RUNS / 100);
      expect(answers).toBeGreaterThan(IN_PROCESS_RUNS / 40);
    },
    FUZZ_TIMEOUT_MS,
  );

  test("a normal task still works afterwards, in every dialect", async () => {
    const v01 = await dispatcher.dispatch(
      { jsonrpc: "2.0", id: 1, method: "tasks/send", params: { id: "after-fuzz", message: { role: "user", parts: [{ type: "text", text: "still here" }] } } },
      {},
    );
    expect(v01.kind === "json" && (v01.body as any).result.status).toMatchObject({ state: "completed" });
    const v10 = await dispatcher.dispatch(
      { jsonrpc: "2.0", id: 2, method: "SendMessage", params: { message: { messageId: "m-after", role: "ROLE_USER", parts: [{ text: "v1" }] } } },
      { a2aVersion: "1.0" },
    );
    expect(JSON.stringify(v10.kind === "json" && v10.body)).toContain("TASK_STATE_COMPLETED");
  });
});

describe("over HTTP", () => {
  let router: RunningRouter;
  beforeAll(async () => {
    router = await testRouter({ eliza: false, config: { limits: { maxBodyBytes: 64 * 1024 }, defaultAgent: "echo" } });
  });
  afterAll(() => router.close());

  /** A body as bytes: JSON of a generated body, or the same JSON cut short / with junk, or raw noise. */
  const wireBody = fc.oneof(
    { weight: 8, arbitrary: rpcBody.map((b) => JSON.stringify(b) ?? "null") },
    {
      weight: 1,
      arbitrary: fc.tuple(rpcBody, fc.nat()).map(([b, cut]) => {
        const s = JSON.stringify(b) ?? "";
        return s.slice(0, cut % (s.length + 1));
      }),
    },
    { weight: 1, arbitrary: fc.oneof(fc.string({ maxLength: 40 }), fc.constant("x".repeat(70 * 1024))) },
  );
  const path = fc.constantFrom("/rpc", "/", "/agents/echo", "/agents/nope", "/agents/%2e%2e");
  const contentType = fc.constantFrom("application/json", "text/plain", "application/x-www-form-urlencoded", "application/json; charset=latin1", "");

  test(
    `${HTTP_RUNS} requests: JSON or SSE answers, no 5xx but 503, no internals`,
    async () => {
      await fc.assert(
        fc.asyncProperty(wireBody, path, contentType, callHeaders, async (body, p, type, h) => {
          const headers: Record<string, string> = {};
          if (type) headers["content-type"] = type;
          if (h.a2aVersion) headers["a2a-version"] = h.a2aVersion.replace(/[^\x20-\x7e]/g, "");
          if (h.lastEventId) headers["last-event-id"] = h.lastEventId.replace(/[^\x20-\x7e]/g, "");
          const res = await fetch(router.url + p, { method: "POST", headers, body, signal: AbortSignal.timeout(STREAM_LIMIT_MS) });
          const text = await res.text();
          const where = `HTTP ${res.status} ${p}`;
          if (res.status >= 500 && res.status !== 503) throw new Error(`${where}: ${text.slice(0, 300)}`);
          const leak = leakIn(text);
          if (leak) throw new Error(`${where}: leaks ${leak}: ${text.slice(0, 300)}`);
          const ct = res.headers.get("content-type") ?? "";
          if (ct.startsWith("text/event-stream")) return void checkSseFrames(text, where);
          if (res.status === 204) return;
          if (!ct.startsWith("application/json")) throw new Error(`${where}: content-type ${ct}: ${text.slice(0, 200)}`);
          const json = JSON.parse(text);
          if (res.status === 200) checkBody(json, where);
          else if (![404, 413, 415, 400, 503].includes(res.status)) throw new Error(`${where}: unexpected status: ${text.slice(0, 200)}`);
        }),
        { seed: FUZZ_SEED, numRuns: HTTP_RUNS, endOnFailure: true },
      );
    },
    FUZZ_TIMEOUT_MS,
  );

  test("a normal task works over HTTP afterwards and /healthz answers", async () => {
    const res = await fetch(`${router.url}/rpc`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "message/send",
        params: { message: { kind: "message", messageId: "m1", role: "user", parts: [{ kind: "text", text: "ok" }] }, metadata: { agent: "echo" } },
      }),
    });
    const body = (await res.json()) as any;
    expect(body.result.status.state).toBe("completed");
    expect((await fetch(`${router.url}/healthz`)).status).toBe(200);
  });
});
