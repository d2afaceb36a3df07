import { afterAll, beforeAll, describe, expect, test } from "@jest/globals";
import { createReplyReader } from "../../router/core/reply.js";
import type { RunningRouter } from "../../router/index.js";
import { getJson, openStream, rpc, statusText, userMessage, type Json } from "../helpers/rpc.js";
import { until } from "../interop/helpers.js";
import { testRouter } from "../helpers/router.js";
import { V01Upstream } from "../helpers/v01-upstream.js";

let streaming: V01Upstream;
let plain: V01Upstream;
let cardless: V01Upstream;
let router: RunningRouter;

beforeAll(async () => {
  streaming = await new V01Upstream({ streaming: true }).start();
  plain = await new V01Upstream({ streaming: false }).start();
  cardless = await new V01Upstream({ streaming: true, cardPath: null }).start();
  router = await testRouter({
    config: {
      agents: [
        { id: "up", url: streaming.url, headers: { "x-upstream-key": "secret" } },
        { id: "up-plain", url: plain.url },
        { id: "up-dead", url: "http://127.0.0.1:9" },
        { id: "up-cardless", url: cardless.url },
      ],
    },
  });
});
afterAll(async () => {
  await router.close();
  await streaming.stop();
  await plain.stop();
  await cardless.stop();
});

describe("upstream HTTP-SSE agents", () => {
  test("the card is read: name, skills and streaming", async () => {
    // On a loaded machine the lookup may outlast the start-up bound and finish in the background.
    let up: Json | undefined;
    await until(async () => {
      const list = await getJson(router.url + "/agents");
      up = list.agents.find((a: { id: string }) => a.id === "up");
      return up !== undefined && up.name !== "up"; // until then it is listed under its config id
    }, "the upstream card to be read");
    expect(up).toMatchObject({ transport: "http", online: true, name: "Upstream v0.1" });
    expect(up!.card.skills[0].id).toBe("shout");
    expect(up!.card.url).toBe(`${router.url}/agents/up`);
  });

  test("tasks/sendSubscribe is forwarded and the upstream SSE relayed event by event", async () => {
    const s = await openStream(router.url, "tasks/sendSubscribe", { id: "u-1", sessionId: "sess", message: userMessage("hey"), metadata: { agent: "up" } });
    const events = await s.all();
    expect(events.map((e) => e.id)).toEqual(["1", "2", "3"]);
    expect(statusText(events[0]!)).toBe("working: hey");
    expect(events[1]!.data.result.artifact.parts[0].text).toBe("HEY");
    expect(events[2]!.data.result).toMatchObject({ id: "u-1", status: { state: "completed" }, final: true });
    // A v0.1 agent's status chunks extend the answer; its final status is the answer (CONTRACT 9).
    expect(events[0]!.data.result.metadata).toEqual({ textKind: "delta" });
    expect(events[2]!.data.result.metadata).toEqual({ textKind: "snapshot" });
    const reader = createReplyReader();
    for await (const event of router.engine.events("u-1", 0)) reader.feed(event);
    expect(reader.answer).toBe("HEY");
    const call = streaming.calls.find((c) => c.params.id === "u-1")!;
    expect(call.method).toBe("tasks/sendSubscribe");
    expect(call.params.sessionId).toBe("sess");
  });

  test("tasks/send through the router waits for the final state", async () => {
    const r = await rpc(router.url, "tasks/send", { id: "u-2", message: userMessage("abc") }, { path: "/agents/up" });
    expect(r.result.status.state).toBe("completed");
    expect(r.result.artifacts[0].parts[0].text).toBe("ABC");
  });

  test("a non-streaming upstream still gives one uniform stream", async () => {
    const s = await openStream(router.url, "tasks/sendSubscribe", { id: "u-3", message: userMessage("quiet"), metadata: { agent: "up-plain" } });
    const events = await s.all();
    expect(events.map((e) => e.id)).toEqual(["1", "2"]);
    expect(events[0]!.data.result.artifact.parts[0].text).toBe("QUIET");
    expect(events[1]!.data.result).toMatchObject({ status: { state: "completed" }, final: true });
    expect(plain.calls.find((c) => c.params.id === "u-3")!.method).toBe("tasks/send");
  });

  test("a stream cut mid-way ends with a final failed event", async () => {
    const s = await openStream(router.url, "tasks/sendSubscribe", { id: "u-4", message: userMessage("break"), metadata: { agent: "up" } });
    const events = await s.all();
    expect(events[0]!.data.result.status.state).toBe("working");
    const last = events[events.length - 1]!;
    expect(last.data.result).toMatchObject({ status: { state: "failed" }, final: true });
    expect(statusText(last)).toMatch(/^Upstream agent up closed its stream before a final status/);
  });

  test("HTTP errors and JSON-RPC errors fail the task with the reason; an unreachable agent is unavailable", async () => {
    const cases: Array<[string, string, RegExp]> = [
      ["u-5", "http-500", /HTTP 500 Internal Server Error: upstream exploded/],
      ["u-6", "rpc-error", /model overloaded/],
    ];
    for (const [id, text, reason] of cases) {
      const r = await rpc(router.url, "tasks/send", { id, message: userMessage(text), metadata: { agent: "up" } });
      expect(r.result.status.state).toBe("failed");
      expect(r.result.status.message.parts[0].text).toMatch(reason);
    }
    const dead = await rpc(router.url, "tasks/send", { id: "u-7", message: userMessage("x"), metadata: { agent: "up-dead" } });
    expect(dead.error).toMatchObject({ code: -32050, data: { agent: "up-dead" } });
    const { agents } = await getJson(router.url + "/agents");
    expect(agents.find((a: { id: string }) => a.id === "up-dead").online).toBe(false);
  });

  test("tasks/cancel is forwarded upstream and the task ends canceled", async () => {
    const s = await openStream(router.url, "tasks/sendSubscribe", { id: "u-8", message: userMessage("hang"), metadata: { agent: "up" } });
    await s.next();
    const r = await rpc(router.url, "tasks/cancel", { id: "u-8" });
    expect(r.result.status.state).toBe("canceled");
    // The router tells the upstream before it cuts the stream (and ends the task canceled even though the
    // upstream just closed its stream without a final event).
    expect(streaming.cancels).toContain("u-8");
    const rest = await s.all();
    expect(rest[rest.length - 1]!.data.result).toMatchObject({ status: { state: "canceled" }, final: true });
  });

  test("an agent without a card works as v0.1 streaming, and its card is not looked up on every turn", async () => {
    const lookups = cardless.gets.length;
    expect(lookups).toBeGreaterThan(0);
    for (const id of ["nc-1", "nc-2", "nc-3"]) {
      const r = await rpc(router.url, "tasks/send", { id, message: userMessage("x"), metadata: { agent: "up-cardless" } });
      expect(r.result.status.state).toBe("completed");
    }
    expect(cardless.gets.length).toBe(lookups);
  });

  test("configured headers are sent upstream", async () => {
    await rpc(router.url, "tasks/send", { id: "u-9", message: userMessage("h"), metadata: { agent: "up" } });
    expect(streaming.calls.find((c) => c.params.id === "u-9")!.headers["x-upstream-key"]).toBe("secret");
  });
});
