import { afterAll, afterEach, beforeAll, describe, expect, test } from "@jest/globals";
import WebSocket from "ws";
import { AgentOptionsError, AgentRefusedError, connectAgent, type Agent, type ConnectAgentOptions } from "../../agents/sdk/index.js";
import { startRouter, type RunningRouter } from "../../router/index.js";
import { deferred, memoryLogger, rpc, sendParams, stream, text } from "./helpers.js";

let router: RunningRouter;
let hubUrl: string;
const agents: Agent[] = [];

/** Connects an agent that the suite closes afterwards; skills go on before it registers. */
function agent(name: string, extra: Partial<ConnectAgentOptions> = {}): Agent {
  const a = connectAgent({ url: hubUrl, name, logger: memoryLogger(), ...extra });
  agents.push(a);
  return a;
}

beforeAll(async () => {
  router = await startRouter({ port: 0, store: "memory", config: { hub: { tokens: { "good-token": ["secured", "owned"] }, allowAnonymous: true } } });
  hubUrl = `${router.url.replace(/^http/, "ws")}/hub`;
});

afterEach(async () => {
  await Promise.all(agents.splice(0).map((a) => a.close()));
});

afterAll(async () => {
  await router.close();
});

describe("skills", () => {
  test("an async generator streams each chunk as working status; the joined chunks complete the task", async () => {
    const a = agent("streamer").skill({ name: "words", description: "streams words" }, async function* (message) {
      for (const word of message.split(" ")) yield `${word.toUpperCase()} `;
    });
    await a.ready;
    const events = await stream(router.url, "tasks/sendSubscribe", sendParams("streamer", "one two three"));
    const working = events.filter((e) => !e.result.final);
    expect(working.map(text)).toEqual(["ONE ", "TWO ", "THREE "]);
    expect(working.every((e) => e.result.status?.state === "working")).toBe(true);
    const last = events.at(-1)!;
    expect(last.result.final).toBe(true);
    expect(last.result.status?.state).toBe("completed");
    expect(text(last)).toBe("ONE TWO THREE ");
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
  });

  test("a returning handler completes once, with its cost metadata; clients see working then final", async () => {
    const a = agent("returner").skill({ name: "answer", description: "answers at once" }, async (message) => ({
      text: `answer to ${message}`,
      metadata: { cost: { usd: 0.0125, inputTokens: 3 } },
    }));
    await a.ready;
    const events = await stream(router.url, "tasks/sendSubscribe", sendParams("returner", "life"));
    expect(events).toHaveLength(2);
    expect(events[0]!.result).toMatchObject({ status: { state: "working" }, final: false });
    expect(text(events[0]!)).toBe("answer to life");
    expect(events[1]!.result).toMatchObject({ status: { state: "completed" }, final: true, metadata: { cost: { usd: 0.0125, inputTokens: 3 } } });

    const task = await rpc(router.url, "tasks/send", sendParams("returner", "everything"));
    expect(task.status.state).toBe("completed");
    expect(task.status.message.parts[0].text).toBe("answer to everything");
  });

  test("a plain string return works too, and metadata.skill picks the skill (else the first)", async () => {
    const a = agent("multi")
      .skill({ name: "first", description: "the default" }, async () => "from first")
      .skill({ name: "second", description: "chosen by name" }, async (_m, ctx) => `from ${ctx.skill} in ${ctx.sessionId}`);
    await a.ready;
    const plain = await rpc(router.url, "tasks/send", sendParams("multi", "x"));
    expect(plain.status.message.parts[0].text).toBe("from first");
    const chosen = await rpc(router.url, "tasks/send", { ...sendParams("multi", "x", { metadata: { skill: "second" } }), sessionId: "s-1" });
    expect(chosen.status.message.parts[0].text).toBe("from second in s-1");
    const unknown = await rpc(router.url, "tasks/send", sendParams("multi", "x", { metadata: { skill: "third" } }));
    expect(unknown.status.state).toBe("failed");
    expect(unknown.status.message.parts[0].text).toBe('unknown skill "third"; agent "multi" has: first, second');
  });

  test("the card lists the skills and says whether the agent streams", async () => {
    const a = agent("carded", { card: { description: "a described agent", version: "1.2.3" } }).skill(
      { name: "gen", description: "a generator", tags: ["t"], examples: ["e"] },
      async function* () {
        yield "x";
      },
    );
    await a.ready;
    const res = await fetch(`${router.url}/agents`);
    const listing = ((await res.json()) as { agents: Array<{ id: string; online: boolean; transport: string; card: any }> }).agents.find(
      (x) => x.id === "carded",
    )!;
    expect(listing).toMatchObject({ online: true, transport: "ws" });
    const card = (await (await fetch(`${router.url}/agents/carded/.well-known/agent.json`)).json()) as any;
    expect(card.skills).toEqual([expect.objectContaining({ id: "gen", name: "gen", description: "a generator", tags: ["t"], examples: ["e"] })]);
    expect(card.capabilities.streaming).toBe(true);
  });

  test("artifacts: ctx.artifact streams file chunks (append, lastChunk), returned artifacts precede the completion", async () => {
    const a = agent("artist").skill({ name: "draw", description: "makes files" }, async (_m, ctx) => {
      await ctx.status("drawing");
      await ctx.artifact({ name: "log.txt", index: 0, parts: ["line 1\n"] });
      await ctx.artifact({ name: "log.txt", index: 0, parts: ["line 2\n"], append: true, lastChunk: true });
      return {
        text: "drawn",
        artifacts: [{ name: "data", index: 1, parts: [{ type: "data", data: { width: 3 } }] }],
      };
    });
    await a.ready;
    const params = sendParams("artist", "go");
    const events = await stream(router.url, "tasks/sendSubscribe", params);
    expect(events.map((e) => (e.result.artifact ? `artifact:${e.result.artifact.name}` : `${e.result.status!.state}:${text(e)}`))).toEqual([
      "working:drawing",
      "artifact:log.txt",
      "artifact:log.txt",
      "artifact:data",
      "completed:drawn",
    ]);
    // ctx.status is progress, not part of the answer: marked so clients can show it apart.
    expect(events[0]!.result.metadata).toEqual({ progress: true, textKind: "progress" });
    expect(events[1]!.result.artifact).toMatchObject({ index: 0, parts: [{ type: "text", text: "line 1\n" }] });
    expect(events[2]!.result.artifact).toMatchObject({ index: 0, append: true, lastChunk: true, parts: [{ type: "text", text: "line 2\n" }] });
    expect(events[3]!.result.artifact).toMatchObject({ index: 1, parts: [{ type: "data", data: { width: 3 } }] });
    const task = await rpc(router.url, "tasks/get", { id: params.id });
    expect(task.artifacts.map((x: { name: string }) => x.name)).toEqual(["log.txt", "data"]);
  });

  test("a thrown error fails that task with its message, and the agent keeps serving", async () => {
    let calls = 0;
    const a = agent("fragile").skill({ name: "risky", description: "fails first" }, async function* () {
      calls += 1;
      yield "trying";
      if (calls === 1) throw new Error("the model is down");
      yield "fine";
    });
    await a.ready;
    const failed = await stream(router.url, "tasks/sendSubscribe", sendParams("fragile", "x"));
    expect(failed.at(-1)!.result).toMatchObject({ final: true, status: { state: "failed" } });
    expect(text(failed.at(-1)!)).toBe("the model is down");
    const ok = await rpc(router.url, "tasks/send", sendParams("fragile", "x"));
    expect(ok.status.state).toBe("completed");
    expect(ok.status.message.parts[0].text).toBe("tryingfine");
  });

  test("input-required: a handler asks for more, the next turn on the same task id answers", async () => {
    const a = agent("asker").skill({ name: "ask", description: "asks first" }, async (message) =>
      message === "start" ? { state: "input-required" as const, text: "which colour?" } : `you chose ${message}`,
    );
    await a.ready;
    const first = await rpc(router.url, "tasks/send", sendParams("asker", "start"));
    expect(first.status.state).toBe("input-required");
    expect(first.status.message.parts[0].text).toBe("which colour?");
    const second = await rpc(router.url, "tasks/send", sendParams("asker", "blue", { id: first.id }));
    expect(second.status.state).toBe("completed");
    expect(second.status.message.parts[0].text).toBe("you chose blue");
  });
});

describe("cancel and concurrency", () => {
  test("task.cancel aborts ctx.signal; the task ends canceled; the agent keeps serving", async () => {
    const aborted = deferred<string>();
    const a = agent("cancelable").skill({ name: "wait", description: "waits for cancel" }, async function* (message, ctx) {
      if (message === "quick") {
        yield "quick";
        return;
      }
      yield "waiting";
      await new Promise<void>((resolve) => ctx.signal.addEventListener("abort", () => resolve(), { once: true }));
      aborted.resolve(String((ctx.signal.reason as Error).message));
      yield "never streamed";
    });
    await a.ready;
    const params = sendParams("cancelable", "slow");
    const events = await stream(router.url, "tasks/sendSubscribe", params, async (event) => {
      if (!event.result.final) {
        const task = await rpc(router.url, "tasks/cancel", { id: params.id });
        expect(task.status.state).toBe("canceled");
      }
    });
    expect(await aborted.promise).toBe("task canceled by the router");
    expect(events.map(text)).not.toContain("never streamed");
    expect(events.at(-1)!.result).toMatchObject({ final: true, status: { state: "canceled" } });
    const ok = await rpc(router.url, "tasks/send", sendParams("cancelable", "quick"));
    expect(ok.status.state).toBe("completed");
  });

  test("concurrency limits how many tasks run at once; the rest wait their turn", async () => {
    const gate = deferred();
    const twoStarted = deferred();
    const threeHanded = deferred();
    const started: string[] = [];
    const a = agent("pair", { concurrency: 2 }).skill({ name: "hold", description: "holds until the gate opens" }, async (message) => {
      started.push(message);
      if (started.length === 2) twoStarted.resolve();
      await gate.promise;
      return message;
    });
    let handed = 0;
    a.on("task", () => {
      if (++handed === 3) threeHanded.resolve();
    });
    await a.ready;
    const results = ["a", "b", "c"].map((m) => rpc(router.url, "tasks/send", sendParams("pair", m)));
    await Promise.all([twoStarted.promise, threeHanded.promise]);
    // All three were handed over; two hold both slots, so the third has not started.
    expect(started).toHaveLength(2);
    gate.resolve();
    const tasks = await Promise.all(results);
    expect(tasks.map((t) => t.status.state)).toEqual(["completed", "completed", "completed"]);
    expect([...started].sort()).toEqual(["a", "b", "c"]);
  });
});

describe("refusals", () => {
  test("a bad token is fatal: ready rejects saying why, and the agent does not retry", async () => {
    let retries = 0;
    const a = agent("secured", { token: "wrong-token", reconnect: { initialDelayMs: 10, maxDelayMs: 20 } });
    a.on("reconnecting", () => retries++);
    const error = await a.ready.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(AgentRefusedError);
    expect((error as Error).message).toBe('hub refused agent "secured": Invalid params: invalid token');
    expect(retries).toBe(0);
    expect(a.connected).toBe(false);
  });

  test("the right token registers; a name owned by a token refuses anonymous agents", async () => {
    const good = agent("secured", { token: "good-token" }).skill({ name: "s", description: "" }, async () => "ok");
    expect((await good.ready).agentId).toBe("secured");
    const errors: Error[] = [];
    const thief = agent("owned").on("error", (e) => errors.push(e));
    await expect(thief.ready).rejects.toThrow(/owned by another token/);
    expect(errors).toHaveLength(1);
  });

  test("the SDK's name rule is the hub's: what the SDK refuses at once, the hub refuses too; edge names register", async () => {
    /** Registers `name` over a raw link, as an agent without the SDK would; resolves with the hub's error, if any. */
    const rawRegister = (name: string) =>
      new Promise<string | undefined>((resolve, reject) => {
        const ws = new WebSocket(hubUrl);
        ws.on("error", reject);
        ws.on("open", () => ws.send(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "agent.register", params: { agent_name: name } })));
        ws.on("message", (data) => {
          const frame = JSON.parse(String(data));
          if (frame.id !== 1) return;
          ws.close();
          resolve(frame.error?.message);
        });
      });
    for (const name of ["my agent", "-lead", "a/b", "a".repeat(129)]) {
      expect(() => connectAgent({ url: hubUrl, name })).toThrow(AgentOptionsError);
      expect(await rawRegister(name)).toMatch(/agent_name/);
    }
    for (const name of ["a".repeat(128), "9.x_y-z"]) {
      await expect(agent(name).ready).resolves.toMatchObject({ agentId: name });
    }
  });

  test("a second agent under a connected name is refused", async () => {
    const first = agent("twin").skill({ name: "s", description: "" }, async () => "first");
    await first.ready;
    const second = agent("twin");
    await expect(second.ready).rejects.toThrow('hub refused agent "twin": Invalid params: agent "twin" is already connected');
    expect((await rpc(router.url, "tasks/send", sendParams("twin", "x"))).status.message.parts[0].text).toBe("first");
  });
});
