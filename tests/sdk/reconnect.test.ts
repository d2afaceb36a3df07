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
  const release = deferred();
  const lateRefused = deferred();
  const agent = connectAgent({
    url: `ws://127.0.0.1:${port}/hub`,
    name: "phoenix",
    reconnect: { initialDelayMs: 20, maxDelayMs: 100 },
    logger: {
      debug: (msg) => {
        if (msg.startsWith("hub refused task.complete")) lateRefused.resolve();
      },
      info: () => {},
      warn: () => {},
      error: () => {},
    },
  });
  agent.skill({ name: "work", description: "slow or quick" }, async function* (message) {
    if (message === "slow") {
      yield "started";
      inFlight.resolve();
      await release.promise;
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
    // The router closing ends the client's stream with a final failed event, never a hang.
    const events = await streamed;
    expect(events.map(text)[0]).toBe("started");
    expect(events.at(-1)!.result).toMatchObject({ final: true, status: { state: "failed" } });

    const again = nextRegistration(agent);
    router = await startRouter({ port, store });
    expect(await again).toMatchObject({ agentId: "phoenix", reconnected: true });

    const before = await rpc(router.url, "tasks/get", { id: params.id });
    expect(before.status.state).toBe("failed");
    // The handler finishes now; its frames reach the new hub, which refuses them: the task stays failed.
    release.resolve();
    await lateRefused.promise;
    const after = await rpc(router.url, "tasks/get", { id: params.id });
    expect(after.status.state).toBe("failed");

    const fresh = await rpc(router.url, "tasks/send", sendParams("phoenix", "now"));
    expect(fresh.status.state).toBe("completed");
    expect(fresh.status.message.parts[0].text).toBe("done now");
  } finally {
    await agent.close();
    await router.close();
  }
});
