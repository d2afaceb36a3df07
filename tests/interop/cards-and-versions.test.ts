import { afterAll, beforeAll, describe, expect, test } from "@jest/globals";
import { AgentCard as PbAgentCard } from "@a2a-js/sdk";
import { isLegacyAgentCard } from "@a2a-js/sdk/compat/v0_3/client";
import type { RunningRouter } from "../../router/index.js";
import { SchemaRegistry } from "../../router/schema/validator.js";
import { getJson, openStream, rpc, userMessage } from "../helpers/rpc.js";
import { testRouter } from "../helpers/router.js";

/** The cards the router serves, read by every generation of client, and the A2A-Version rules. */

let router: RunningRouter;
let secured: RunningRouter;
const schemas = new SchemaRegistry();

beforeAll(async () => {
  router = await testRouter();
  secured = await testRouter({ config: { apiKeys: ["k1"] } });
});

afterAll(async () => {
  await router.close();
  await secured.close();
});

describe("agent cards", () => {
  test("a per-agent card: url and supportedInterfaces name /agents/{id}; skills from the agent; both paths alike", async () => {
    const card = await getJson(`${router.url}/agents/echo/.well-known/agent-card.json`);
    const url = `${router.url}/agents/echo`;
    expect(card.url).toBe(url);
    expect(card.supportedInterfaces).toEqual([
      { url, protocolBinding: "JSONRPC", protocolVersion: "1.0" },
      { url, protocolBinding: "JSONRPC", protocolVersion: "0.3" },
      { url: `${url}/rest`, protocolBinding: "HTTP+JSON", protocolVersion: "1.0" },
    ]);
    expect(card.additionalInterfaces).toEqual([
      { url, transport: "JSONRPC" },
      { url: `${url}/rest`, transport: "HTTP+JSON" },
    ]);
    expect(card).toMatchObject({ name: "echo", protocolVersion: "0.3.0", preferredTransport: "JSONRPC" });
    expect(card.skills).toEqual([{ id: "echo", name: "Echo", description: "Replies with the text it was sent.", tags: ["test"], examples: ["hello"] }]);
    expect(card.capabilities).toMatchObject({ streaming: true });
    expect(await getJson(`${router.url}/agents/echo/.well-known/agent.json`)).toEqual(card);
  });

  test("the card is a valid v0.3 AgentCard and reads as a v1.0 one (the SDK's parser keeps its interfaces)", async () => {
    const card = await getJson(`${router.url}/agents/echo/.well-known/agent-card.json`);
    expect(schemas.check("v0.3#/$defs/AgentCard", card)).toBeUndefined();
    expect(isLegacyAgentCard(card)).toBe(false); // supportedInterfaces wins: v1.0 clients use v1.0
    const pb = PbAgentCard.fromJSON(card);
    expect(pb.supportedInterfaces.map((i) => `${i.protocolBinding} ${i.protocolVersion}`)).toEqual(["JSONRPC 1.0", "JSONRPC 0.3", "HTTP+JSON 1.0"]);
    expect(pb.skills[0]!.tags).toEqual(["test"]);
  });

  test("the router's card: its endpoint is /rpc and its skills are its agents", async () => {
    const card = await getJson(`${router.url}/.well-known/agent-card.json`);
    expect(card.url).toBe(`${router.url}/rpc`);
    expect(card.supportedInterfaces[0].url).toBe(`${router.url}/rpc`);
    expect(card.skills.map((s: { id: string }) => s.id)).toContain("echo");
    expect(schemas.check("v0.3#/$defs/AgentCard", card)).toBeUndefined();
  });

  test("with API keys the card declares them, for v0.3 and v1.0 readers", async () => {
    const card = await getJson(`${secured.url}/agents/echo/.well-known/agent-card.json`);
    expect(card.securitySchemes.bearer).toMatchObject({ type: "http", scheme: "bearer" });
    expect(card.security).toEqual([{ bearer: [] }, { apiKey: [] }]);
    expect(card.securityRequirements[0]).toEqual({ schemes: { bearer: { list: [] } } });
    expect(schemas.check("v0.3#/$defs/AgentCard", card)).toBeUndefined();
  });

  test("with API keys, GetExtendedAgentCard (v1.0, in the v1.0 shape) and agent/getAuthenticatedExtendedCard (v0.3) answer with the agent's card", async () => {
    const auth = { authorization: "Bearer k1" };
    const public_ = await getJson(`${secured.url}/agents/echo/.well-known/agent-card.json`);
    expect(public_.capabilities.extendedAgentCard).toBe(true);
    expect(public_.supportsAuthenticatedExtendedCard).toBe(true);
    const v1 = await rpc(secured.url, "GetExtendedAgentCard", undefined, { path: "/agents/echo", headers: { "A2A-Version": "1.0", ...auth } });
    expect(v1.result).toEqual(await getJson(`${secured.url}/agents/echo/.well-known/agent-card.json`, { "A2A-Version": "1.0" }));
    expect(v1.result.url).toBeUndefined();
    const legacy = await rpc(secured.url, "agent/getAuthenticatedExtendedCard", undefined, { path: "/agents/echo", headers: auth });
    expect(legacy.result).toEqual(public_);
    const routerCard = await rpc(secured.url, "agent/getAuthenticatedExtendedCard", {}, { headers: auth });
    expect(routerCard.result.url).toBe(`${secured.url}/rpc`);
    const rest = await fetch(`${secured.url}/agents/echo/rest/extendedAgentCard`, { headers: auth });
    expect(rest.status).toBe(200);
    expect(((await rest.json()) as { name: string }).name).toBe("echo");
    // Without a key the endpoint itself refuses the caller.
    expect((await fetch(`${secured.url}/agents/echo/rest/extendedAgentCard`)).status).toBe(401);
  });

  test("without API keys no caller is authenticated: no extended card is advertised, and asking for one is extended-card-not-configured", async () => {
    const card = await getJson(`${router.url}/agents/echo/.well-known/agent-card.json`);
    expect(card.capabilities.extendedAgentCard).toBe(false);
    expect(card.supportsAuthenticatedExtendedCard).toBe(false);
    const v1 = await rpc(router.url, "GetExtendedAgentCard", {}, { path: "/agents/echo", headers: { "A2A-Version": "1.0" } });
    expect(v1.error).toMatchObject({ code: -32007 });
    const v03 = await rpc(router.url, "agent/getAuthenticatedExtendedCard", {}, { path: "/agents/echo" });
    expect(v03.error).toMatchObject({ code: -32007 });
    const rest = await fetch(`${router.url}/agents/echo/rest/extendedAgentCard`);
    expect(rest.status).toBe(400);
    expect(((await rest.json()) as any).error.details[0].reason).toBe("EXTENDED_AGENT_CARD_NOT_CONFIGURED");
  });
});

describe("A2A-Version", () => {
  test("an unsupported version is VersionNotSupported (-32009), whatever the method", async () => {
    // v1.0 says it in an ErrorInfo (A2A v1.0.1 9.5), v0.3 and v0.1 in their data object.
    const v10 = await rpc(router.url, "SendMessage", {}, { path: "/agents/echo", headers: { "A2A-Version": "0.5" } });
    expect(v10.error).toEqual({
      code: -32009,
      message: "A2A version not supported: 0.5",
      data: [
        { "@type": "type.googleapis.com/google.rpc.ErrorInfo", reason: "VERSION_NOT_SUPPORTED", domain: "a2a-protocol.org", metadata: { version: "0.5" } },
      ],
    });
    for (const method of ["message/send", "tasks/send"]) {
      const r = await rpc(router.url, method, {}, { path: "/agents/echo", headers: { "A2A-Version": "0.5" } });
      expect(r.error).toMatchObject({ code: -32009, data: { version: "0.5" } });
    }
  });

  test("the version may come as the A2A-Version query parameter (v1.0 3.6)", async () => {
    const r = await rpc(router.url, "SendMessage", {}, { path: "/agents/echo?A2A-Version=0.5" });
    expect(r.error).toMatchObject({ code: -32009, data: [{ reason: "VERSION_NOT_SUPPORTED", metadata: { version: "0.5" } }] });
    const ok = await rpc(
      router.url,
      "SendMessage",
      { message: { messageId: "q", role: "ROLE_USER", parts: [{ text: "q" }] } },
      { path: "/agents/echo?A2A-Version=1.0" },
    );
    expect(ok.result.task.status.state).toBe("TASK_STATE_COMPLETED");
  });

  test("empty means 0.3; 1.0 and patch versions are accepted; the method names the dialect", async () => {
    const v03 = await rpc(
      router.url,
      "message/send",
      { message: { kind: "message", messageId: "a", role: "user", parts: [{ kind: "text", text: "x" }] } },
      { path: "/agents/echo" },
    );
    expect(v03.result.kind).toBe("task");
    const v10 = await rpc(
      router.url,
      "SendMessage",
      { message: { messageId: "b", role: "ROLE_USER", parts: [{ text: "y" }] } },
      { path: "/agents/echo", headers: { "A2A-Version": "1.0.1" } },
    );
    expect(v10.result.task.status.state).toBe("TASK_STATE_COMPLETED");
    const v01 = await rpc(router.url, "tasks/send", { id: "ver-1", message: userMessage("z") }, { path: "/agents/echo", headers: { "A2A-Version": "1.0" } });
    expect(v01.result.status.state).toBe("completed");
  });

  test("a v1.0 stream on the raw wire: SSE ids, the Task first, no kind or final", async () => {
    const s = await openStream(
      router.url,
      "SendStreamingMessage",
      { message: { messageId: "c", role: "ROLE_USER", parts: [{ text: "wire" }] } },
      { path: "/agents/echo", headers: { "A2A-Version": "1.0" } },
    );
    const events = await s.all();
    expect(events.map((e) => e.id)).toEqual([undefined, "1", "2"]);
    expect(Object.keys(events[0]!.data.result)).toEqual(["task"]);
    expect(events[2]!.data.result.statusUpdate.status.state).toBe("TASK_STATE_COMPLETED");
    expect(JSON.stringify(events.map((e) => e.data.result))).not.toMatch(/"kind"|"final"/);
  });
});
