import { afterAll, beforeAll, describe, expect, test } from "@jest/globals";
import { get } from "node:http";
import type { RunningRouter } from "../../router/index.js";
import { scriptedAgent } from "../helpers/agents.js";
import { getJson, openStream, rpc, userMessage } from "../helpers/rpc.js";
import { testRouter } from "../helpers/router.js";

let router: RunningRouter;

/** fetch may not set Host; node:http may, as a reverse proxy would. */
function getWithHost(url: string, host: string): Promise<Record<string, any>> {
  return new Promise((resolve, reject) => {
    get(url, { headers: { host } }, (res) => {
      let body = "";
      res.on("data", (d) => (body += d));
      res.on("end", () => resolve(JSON.parse(body)));
    }).on("error", reject);
  });
}
beforeAll(async () => {
  const silent = scriptedAgent("silent", async function* (ctx) {
    yield { kind: "status", status: { state: "working" }, final: false };
    await new Promise((r) => ctx.signal.addEventListener("abort", r));
  });
  const quitter = scriptedAgent("quitter", async function* () {
    yield { kind: "status", status: { state: "working" }, final: false };
  });
  const thrower = scriptedAgent("thrower", async function* () {
    yield { kind: "status", status: { state: "working" }, final: false };
    throw new Error("kaboom");
  });
  router = await testRouter({ hostedAgents: [silent, quitter, thrower], config: { taskTimeoutMs: 1000 } });
});
afterAll(() => router.close());

describe("no task hangs in working", () => {
  test("a turn past taskTimeoutMs is failed with a message", async () => {
    const r = await rpc(router.url, "tasks/send", { id: "slow-1", message: userMessage("x"), metadata: { agent: "silent" } });
    expect(r.result.status.state).toBe("failed");
    expect(r.result.status.message.parts[0].text).toBe("Task timed out after 1000 ms.");
  });

  test("an agent that stops without a final status fails the task", async () => {
    const s = await openStream(router.url, "tasks/sendSubscribe", { id: "q-1", message: userMessage("x"), metadata: { agent: "quitter" } });
    const events = await s.all();
    expect(events.map((e) => e.data.result.status.state)).toEqual(["working", "failed"]);
    expect(events[1]!.data.result.final).toBe(true);
  });

  test("an agent that throws fails the task with its error", async () => {
    const r = await rpc(router.url, "tasks/send", { id: "t-1", message: userMessage("x"), metadata: { agent: "thrower" } });
    expect(r.result.status.message.parts[0].text).toBe("kaboom");
  });
});

describe("health, metrics and cards", () => {
  test("GET / says where the endpoints are", async () => {
    const root = await getJson(router.url + "/");
    expect(root).toMatchObject({ name: "a2a-router", rpc: `${router.url}/rpc`, hub: router.url.replace("http", "ws") + "/hub" });
  });

  test("GET /healthz", async () => {
    const r = await fetch(router.url + "/healthz");
    expect(r.status).toBe(200);
    expect(await r.json()).toEqual({ status: "ok" });
  });

  test("GET /metrics speaks Prometheus and counts tasks and events", async () => {
    await rpc(router.url, "tasks/send", { id: "m-1", message: userMessage("x"), metadata: { agent: "echo" } });
    const r = await fetch(router.url + "/metrics");
    expect(r.headers.get("content-type")).toContain("text/plain");
    const body = await r.text();
    expect(body).toMatch(/a2a_router_tasks_total\{agent="echo",state="completed"\} [1-9]/);
    expect(body).toMatch(/a2a_router_events_total [1-9]/);
    for (const name of ["a2a_router_sse_streams", "a2a_router_hub_agents_online", "a2a_router_queue_depth", "a2a_router_tasks_live"]) {
      expect(body).toContain(name);
    }
  });

  test("agent cards point at the router", async () => {
    for (const path of ["/agents/echo/.well-known/agent.json", "/agents/echo/.well-known/agent-card.json"]) {
      const card = await getJson(router.url + path);
      expect(card.url).toBe(`${router.url}/agents/echo`);
      expect(card.supportedInterfaces[0].url).toBe(`${router.url}/agents/echo`);
      expect(card.skills[0].id).toBe("echo");
    }
    // Behind a proxy or on a public address, cards name the router as the client reached it.
    const viaHost = await getWithHost(router.url + "/agents/echo/.well-known/agent-card.json", "gw.example.com:9999");
    expect(viaHost.url).toBe("http://gw.example.com:9999/agents/echo");
    const own = await getJson(router.url + "/.well-known/agent-card.json");
    expect(own.skills.map((s: { id: string }) => s.id)).toContain("echo");
  });
});
