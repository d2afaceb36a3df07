import { afterAll, afterEach, beforeAll, describe, expect, test } from "@jest/globals";
import { createServer, connect, type Server, type Socket } from "node:net";
import { connectAgent, type Agent } from "../../agents/sdk/index.js";
import type { RunningRouter } from "../../router/index.js";
import { testRouter } from "../helpers/router.js";
import { deferred, memoryLogger, nextRegistration, sendParams, stream, text } from "./helpers.js";

/**
 * A resuming agent says which tasks it still runs (issue 32 item 5): the SDK lists them when it registers
 * again, and the router sends `task.execute` again only for the ones it lost. The agent's socket is cut by a
 * TCP proxy between it and the router right after the hub hands it a task, before the hub reads its answer
 * (the case where the hub cannot know whether the agent took the task).
 */

/** A TCP proxy to the router that counts the task.execute frames it carries and can cut the next answer. */
class CuttingProxy {
  readonly server: Server;
  executes = 0;
  /** Cut the connection when the agent answers the next task.execute (its answer is not delivered). */
  armed = false;
  #sockets = new Set<Socket>();

  constructor(routerPort: number) {
    this.server = createServer((agentSide) => {
      const routerSide = connect(routerPort, "127.0.0.1");
      this.#sockets.add(agentSide).add(routerSide);
      let cutNext = false;
      routerSide.on("data", (chunk: Buffer) => {
        // Server-to-client WebSocket frames are not masked: the method name is readable in the bytes.
        const n = chunk.toString("latin1").split("task.execute").length - 1;
        this.executes += n;
        if (n > 0 && this.armed) {
          this.armed = false;
          cutNext = true;
        }
        agentSide.write(chunk);
      });
      agentSide.on("data", (chunk: Buffer) => {
        if (!cutNext) return void routerSide.write(chunk);
        agentSide.destroy();
        routerSide.destroy();
      });
      const end = () => {
        agentSide.destroy();
        routerSide.destroy();
      };
      agentSide.on("close", end).on("error", end);
      routerSide.on("close", end).on("error", end);
    });
  }

  listen(): Promise<number> {
    return new Promise((resolve) => this.server.listen(0, "127.0.0.1", () => resolve((this.server.address() as { port: number }).port)));
  }

  close(): Promise<void> {
    for (const s of this.#sockets) s.destroy();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

let router: RunningRouter;
let proxy: CuttingProxy;
let hubUrl: string;
const agents: Agent[] = [];

beforeAll(async () => {
  router = await testRouter({ eliza: false, config: { hub: { allowAnonymous: true, resumeGraceMs: 10_000 } } });
  proxy = new CuttingProxy(router.port);
  hubUrl = `ws://127.0.0.1:${await proxy.listen()}/hub`;
});
afterEach(async () => {
  await Promise.all(agents.splice(0).map((a) => a.close()));
});
afterAll(async () => {
  await proxy.close();
  await router.close();
});

function sdkAgent(name: string): Agent {
  const agent = connectAgent({ url: hubUrl, name, reconnect: { initialDelayMs: 20, maxDelayMs: 100 }, logger: memoryLogger() });
  agents.push(agent);
  return agent;
}

describe("a resuming SDK agent", () => {
  test("a task still running gets no second task.execute, and the stream carries one run", async () => {
    const agent = sdkAgent("resumer");
    const gate = deferred();
    let runs = 0;
    agent.skill({ name: "work", description: "works until told" }, async function* () {
      runs++;
      yield "one ";
      await gate.promise;
      yield "run";
    });
    await agent.ready;
    const before = proxy.executes;
    proxy.armed = true;
    const back = nextRegistration(agent);
    const events = stream(`${router.url}/rpc`, "tasks/sendSubscribe", sendParams("resumer", "go", { id: "resume-1" }));
    expect((await back).reconnected).toBe(true);
    gate.resolve();
    const all = await events;
    expect(proxy.executes - before).toBe(1);
    expect(runs).toBe(1);
    const texts = all.map(text);
    expect(texts.join("|")).toBe("one |run|one run");
    expect(all.at(-1)!.result.status!.state).toBe("completed");
  });

  test("a task that ended while the link was down is not run again: its kept updates are delivered once", async () => {
    const agent = sdkAgent("finisher");
    let runs = 0;
    agent.skill({ name: "quick", description: "answers at once" }, async () => `done ${++runs}`);
    await agent.ready;
    const before = proxy.executes;
    proxy.armed = true;
    const all = await stream(`${router.url}/rpc`, "tasks/sendSubscribe", sendParams("finisher", "go", { id: "resume-2" }));
    expect(proxy.executes - before).toBe(1);
    expect(runs).toBe(1);
    expect(all.at(-1)!.result.status!.state).toBe("completed");
    expect(text(all.at(-1)!)).toBe("done 1");
  });
});
