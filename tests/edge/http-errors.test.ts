import { afterAll, beforeAll, describe, expect, test } from "@jest/globals";
import type { RunningRouter } from "../../router/index.js";
import type { AgentConnector } from "../../router/core/agent.js";
import { testRouter } from "../helpers/router.js";
import { leakIn, raw } from "./helpers.js";

/** JSON everywhere (CONTRACT 13 "Unknown paths") and error text without internals (CONTRACT 12). */

let router: RunningRouter;

beforeAll(async () => {
  router = await testRouter({
    eliza: false,
    hostedAgents: [
      throwing("buggy", () => (undefined as any).x()),
      throwing("quota", () => {
        throw new Error("Upstream agent quota answered HTTP 429");
      }),
    ],
    config: { limits: { maxBodyBytes: 1024 } },
    conversations: async () => {
      // A bug deep in a handler: its text must not reach the client.
      throw new TypeError("Cannot read properties of undefined (reading 'x') at /work/secret/file.js:1:2");
    },
  });
});
afterAll(() => router.close());

/** A hosted agent whose turn throws what `fail` throws. */
function throwing(id: string, fail: () => void): AgentConnector {
  return {
    info: { id, name: id, description: id, transport: "hosted", streaming: false, skills: [] },
    isOnline: () => true,
    // biome-ignore lint/correctness/useYield: an agent whose turn fails before its first update
    async *execute() {
      fail();
    },
  };
}

const json = (r: { headers: Record<string, unknown> }) => expect(String(r.headers["content-type"])).toMatch(/^application\/json/);

describe("unknown paths and wrong methods answer 404 JSON", () => {
  test.each([
    ["GET", "/nope"],
    ["GET", "/agents/echo/nope"],
    ["POST", "/healthz"],
    ["GET", "/rpc"],
    ["PUT", "/rpc"],
    ["DELETE", "/agents"],
    ["POST", "/.well-known/agent.json"],
    ["GET", "/%E0%A4%A"],
  ])("%s %s", async (method, path) => {
    const r = await raw(router.url, { method, path, headers: { "content-type": "application/json" }, body: method === "GET" ? undefined : "{}" });
    expect([400, 404]).toContain(r.status);
    json(r);
    expect(r.json()).toHaveProperty("error");
    expect(r.text).not.toMatch(/<html|<!DOCTYPE|<pre>/i);
    expect(leakIn(r.text)).toBeUndefined();
  });
});

test("an unknown path under /v1 answers OpenAI's error shape", async () => {
  const r = await raw(router.url, { path: "/v1/nope" });
  expect(r.status).toBe(404);
  expect(r.json().error).toEqual({ message: "not found: GET /v1/nope", type: "invalid_request_error", param: null, code: "not_found" });
});

describe("express's own errors are JSON without internals", () => {
  test("a body over limits.maxBodyBytes is 413 JSON", async () => {
    const r = await raw(router.url, { method: "POST", path: "/rpc", headers: { "content-type": "application/json" }, body: "x".repeat(2048) });
    expect(r.status).toBe(413);
    json(r);
    expect(r.json().error.message).toMatch(/limits.maxBodyBytes \(1024 bytes\)/);
  });

  test("bad JSON is -32700 with a plain message, not JSON.parse's", async () => {
    for (const body of ["{", "{'a':1}", "\u0000", "[1,]", ""]) {
      const r = await raw(router.url, { method: "POST", path: "/rpc", headers: { "content-type": "application/json" }, body });
      expect(r.status).toBe(200);
      expect(r.json().error).toEqual({ code: -32700, message: "Parse error: the body is not valid JSON" });
    }
  });

  test("an unsupported Content-Encoding is 415 JSON", async () => {
    const r = await raw(router.url, { method: "POST", path: "/rpc", headers: { "content-type": "application/json", "content-encoding": "bogus" }, body: "{}" });
    expect(r.status).toBe(415);
    json(r);
    expect(leakIn(r.text)).toBeUndefined();
  });

  test.each(["gzip", "deflate", "br"])("a body that is not %s data under that Content-Encoding is 400, not 500", async (encoding) => {
    for (const path of ["/rpc", "/v1/chat/completions", "/api/chat"]) {
      const r = await raw(router.url, { method: "POST", path, headers: { "content-type": "application/json", "content-encoding": encoding }, body: "{}" });
      expect(r.status).toBe(400);
      json(r);
      const message = String(r.json().error.message);
      expect(message).toContain(`could not be decoded as Content-Encoding ${encoding}`);
      expect(message).not.toMatch(/internal/i);
      expect(leakIn(r.text)).toBeUndefined();
    }
  });

  test("a handler that throws is a generic 500: no message, stack or path", async () => {
    const r = await raw(router.url, { path: "/api/conversations/s1/messages" });
    expect(r.status).toBe(500);
    json(r);
    expect(r.json().error.message).toBe("Internal error: the router could not complete the request");
    expect(leakIn(r.text)).toBeUndefined();
  });
});

describe("an agent's failure as the client reads it", () => {
  const send = async (agent: string) =>
    (
      await raw(router.url, {
        method: "POST",
        path: "/rpc",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({
          jsonrpc: "2.0",
          id: 1,
          method: "tasks/send",
          params: { id: `f-${agent}`, message: { role: "user", parts: [{ type: "text", text: "hi" }] }, metadata: { agent } },
        }),
      })
    ).json();

  test("a bug in an agent (TypeError) fails the task with a generic text", async () => {
    const r = await send("buggy");
    expect(r.result.status.state).toBe("failed");
    expect(r.result.status.message.parts[0].text).toBe("Agent buggy failed with an internal error.");
    expect(leakIn(JSON.stringify(r))).toBeUndefined();
  });

  test("a connector's own error keeps its message", async () => {
    const r = await send("quota");
    expect(r.result.status.state).toBe("failed");
    expect(r.result.status.message.parts[0].text).toBe("Upstream agent quota answered HTTP 429");
  });
});
