/**
 * The chat faces' edges as browser apps meet them: readable headers cross-origin, offline models marked,
 * refusals in each face's own shape, `GET /v1`, and files sent through `useChat` reaching the agent.
 */
import { afterAll, beforeAll, describe, expect, test } from "@jest/globals";
import OpenAI from "openai";
import type { RunningRouter } from "../../router/index.js";
import { filesAgent } from "../helpers/agents.js";
import { testRouter } from "../helpers/router.js";
import { postChat, readUi } from "./helpers.js";

const APP = "https://app.example.com";
const KEY = "k-edges";
let router: RunningRouter;

const files = filesAgent();

beforeAll(async () => {
  router = await testRouter({
    eliza: false,
    hostedAgents: [files.agent],
    // An upstream agent nobody listens for: listed, offline.
    config: { apiKeys: [KEY], cors: { origins: [APP] }, agents: [{ id: "gone", url: "http://127.0.0.1:9/" }] },
  });
});
afterAll(() => router.close());

const auth = { authorization: `Bearer ${KEY}` };

/** An error response's body. */
async function errorOf(res: Response): Promise<{ error: { message: string; data?: unknown } & Record<string, unknown> }> {
  return (await res.json()) as { error: { message: string } };
}

/** POST /api/chat with one user message of the given parts, as DefaultChatTransport sends it. */
function postParts(parts: unknown[], agent = "files"): Promise<Response> {
  return fetch(`${router.url}/api/chat`, {
    method: "POST",
    headers: { "content-type": "application/json", ...auth },
    body: JSON.stringify({ id: crypto.randomUUID(), agent, messages: [{ id: "m1", role: "user", parts }], trigger: "submit-message" }),
  });
}

describe("CORS", () => {
  test("a listed origin may read the router's own headers (X-Task-Id, X-Session-Id)", async () => {
    const res = await fetch(`${router.url}/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json", origin: APP, ...auth },
      body: JSON.stringify({ model: "echo", messages: [{ role: "user", content: "hi" }] }),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get("x-task-id")).toBeTruthy();
    const exposed = (res.headers.get("access-control-expose-headers") ?? "").split(/,\s*/);
    expect(exposed).toEqual(expect.arrayContaining(["x-task-id", "x-session-id", "x-vercel-ai-ui-message-stream"]));
  });

  test("an unlisted origin is told nothing", async () => {
    const res = await fetch(`${router.url}/v1/models`, { headers: { origin: "https://elsewhere.example", ...auth } });
    expect(res.headers.get("access-control-expose-headers")).toBeNull();
    expect(res.headers.get("access-control-allow-origin")).toBeNull();
  });
});

describe("the OpenAI face", () => {
  test("/v1/models marks each model online or offline", async () => {
    const client = new OpenAI({ baseURL: `${router.url}/v1`, apiKey: KEY });
    const models = new Map<string, unknown>();
    for await (const m of client.models.list()) models.set(m.id, (m as unknown as { a2a: unknown }).a2a);
    expect(models.get("echo")).toEqual({ online: true });
    expect(models.get("gone")).toEqual({ online: false });
    expect(await client.models.retrieve("gone")).toMatchObject({ a2a: { online: false } });
  });

  test("GET /v1 is an OpenAI-shaped 404, as OpenAI's own base URL answers", async () => {
    const res = await fetch(`${router.url}/v1`, { headers: auth });
    expect(res.status).toBe(404);
    expect((await errorOf(res)).error).toMatchObject({ type: "invalid_request_error", code: "not_found", message: "not found: GET /v1" });
  });

  test("a missing or wrong key: 401 in OpenAI's shape", async () => {
    for (const headers of [{}, { authorization: "Bearer nope" }]) {
      const res = await fetch(`${router.url}/v1/models`, { headers });
      expect(res.status).toBe(401);
      expect((await errorOf(res)).error).toMatchObject({ type: "authentication_error", code: "invalid_api_key" });
    }
  });
});

describe("the AI SDK face", () => {
  test("a missing and a wrong key: 401 {error: {message, reason}}, each saying which", async () => {
    const missing = await postChat(router.url, { id: "c1", text: "hi", agent: "echo" });
    expect(missing.status).toBe(401);
    expect(await errorOf(missing)).toEqual({ error: { message: expect.stringMatching(/^missing API key/), reason: "unauthenticated" } });
    const wrong = await postChat(router.url, { id: "c1", text: "hi", agent: "echo" }, { headers: { authorization: "Bearer nope" } });
    expect(wrong.status).toBe(401);
    expect(await errorOf(wrong)).toEqual({ error: { message: "invalid API key", reason: "unauthenticated" } });
  });

  test("an unlisted origin's POST: 403 in the face's shape", async () => {
    const res = await postChat(router.url, { id: "c1", text: "hi" }, { headers: { origin: "https://evil.example", ...auth } });
    expect(res.status).toBe(403);
    expect((await errorOf(res)).error).toMatchObject({ reason: "forbidden-origin" });
  });

  test("file parts reach the agent as A2A file parts: a data: URL as bytes, an http URL as uri", async () => {
    const png = Buffer.from([0x89, 0x50, 0x4e, 0x47]).toString("base64");
    const res = await postParts([
      { type: "text", text: "look" },
      { type: "file", mediaType: "image/png", filename: "dot.png", url: `data:image/png;base64,${png}` },
      { type: "file", mediaType: "image/jpeg", url: "https://example.com/cat.jpg" },
    ]);
    expect(res.status).toBe(200);
    await readUi(res);
    expect(files.received()!.parts).toEqual([
      { kind: "text", text: "look" },
      { kind: "file", file: { name: "dot.png", mimeType: "image/png", bytes: png } },
      { kind: "file", file: { mimeType: "image/jpeg", uri: "https://example.com/cat.jpg" } },
    ]);
  });

  test("a text data: URL is sent as its base64 bytes; a message of files alone has no empty text", async () => {
    const res = await postParts([{ type: "file", mediaType: "image/svg+xml", url: "data:image/svg+xml,%3Csvg%2F%3E" }]);
    await readUi(res);
    expect(files.received()!.parts).toEqual([{ kind: "file", file: { mimeType: "image/svg+xml", bytes: Buffer.from("<svg/>").toString("base64") } }]);
  });

  test("a media type the agent's card does not accept: 400 naming the part", async () => {
    const runs = files.runs();
    const res = await postParts([
      { type: "text", text: "read" },
      { type: "file", mediaType: "application/pdf", url: "https://example.com/a.pdf" },
    ]);
    expect(res.status).toBe(400);
    const body = await errorOf(res);
    expect(body.error).toMatchObject({ reason: "invalid-params", data: { field: "messages[0].parts[1].mediaType" } });
    expect(body.error.message).toMatch(/agent "files" does not accept application\/pdf files/);
    expect(files.runs()).toBe(runs);
  });

  test("a file part without a usable url or mediaType: 400 naming the field", async () => {
    const cases: [unknown, string][] = [
      [{ type: "file", mediaType: "image/png", url: "ftp://example.com/x.png" }, "messages[0].parts[0].url"],
      [{ type: "file", mediaType: "image/png" }, "messages[0].parts[0].url"],
      [{ type: "file", url: "https://example.com/x.png" }, "messages[0].parts[0].mediaType"],
      [{ type: "file", mediaType: "image/png", url: "data:image/png;base64,***" }, "messages[0].parts[0].url"],
    ];
    for (const [part, field] of cases) {
      const res = await postParts([part]);
      expect([field, res.status]).toEqual([field, 400]);
      expect((await errorOf(res)).error.data).toEqual({ field });
    }
  });

  test("an agent whose card says nothing takes any file (echo)", async () => {
    const res = await postParts(
      [
        { type: "text", text: "x" },
        { type: "file", mediaType: "application/pdf", url: "https://example.com/a.pdf" },
      ],
      "echo",
    );
    expect(res.status).toBe(200);
    await readUi(res);
  });
});
