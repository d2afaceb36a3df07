import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, expect, test } from "@jest/globals";
import { connectAgent } from "../../agents/sdk/index.js";
import { startRouter, type RunningRouter } from "../../router/index.js";
import { deferred, nextRegistration, rpc, sendParams, stream, text } from "./helpers.js";

const dir = mkdtempSync(join(tmpdir(), "a2a-sdk-reconnect-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

test("after the router restarts on the same port: the task in flight ends failed, the agent re-registers, new tasks work", async () => {
  const store = `sqlite:${join(dir, "router.db")}`;
  let router: RunningRouter = await startRouter({ port: 0, store });
  const port = router.port;
  const inFlight = deferred();
  const aborted = deferred<string>();
  const agent = connectAgent({
    url: `ws://127.0.0.1:${port}/hub`,
    name: "phoenix",
    reconnect: { initialDelayMs: 20, maxDelayMs: 100 },
    logger: { debug: () => {}, info: () => {}, warn: () => {}, error: () => {} },
  });
  agent.skill({ name: "work", description: "slow or quick" }, async function* (message, ctx) {
    if (message === "slow") {
      yield "started";
      inFlight.resolve();
      await new Promise((r) => ctx.signal.addEventListener("abort", r, { once: true }));
      aborted.resolve((ctx.signal.reason as Error).message);
      yield "too late";
      return;
    }
    yield `done ${message}`;
  });
  try {
    await agent.ready;
    const params = sendParams("phoenix", "slow");
    const firstEvent = deferred();
    const streamed = stream(router.url, "tasks/sendSubscribe", params, () => firstEvent.resolve());
    await Promise.all([inFlight.promise, firstEvent.promise]);

    const dropped = new Promise((resolve) => agent.on("disconnected", resolve));
    await router.close();
    await dropped;
    // The closing router told the agent to stop the task it failed.
    expect(await aborted.promise).toBe("task canceled by the router");
    // The router closing ends the client's stream with a final failed event, never a hang.
    const events = await streamed;
    expect(events.map(text)[0]).toBe("started");
    expect(events.at(-1)!.result).toMatchObject({ final: true, status: { state: "failed" } });

    const again = nextRegistration(agent);
    router = await startRouter({ port, store });
    expect(await again).toMatchObject({ agentId: "phoenix", reconnected: true });

    const after = await rpc(router.url, "tasks/get", { id: params.id });
    expect(after.status.state).toBe("failed");
    expect(after.status.message.parts[0].text).toBe("The router shut down while this task was in flight.");

    const fresh = await rpc(router.url, "tasks/send", sendParams("phoenix", "now"));
    expect(fresh.status.state).toBe("completed");
    expect(fresh.status.message.parts[0].text).toBe("done now");
  } finally {
    await agent.close();
    await router.close();
  }
});
