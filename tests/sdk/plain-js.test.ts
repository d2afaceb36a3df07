import { spawn } from "node:child_process";
import { join } from "node:path";
import { afterAll, beforeAll, expect, test } from "@jest/globals";
import { startRouter, type RunningRouter } from "../../router/index.js";
import { ensureBuilt, ROOT } from "../cli/build.js";
import { rpc, sendParams, stream, text } from "./helpers.js";

let router: RunningRouter;

beforeAll(async () => {
  await ensureBuilt();
  router = await startRouter({ port: 0, store: "memory" });
}, 300_000);

afterAll(() => router.close());

test("the SDK works from plain JavaScript, imported as a2a-router/sdk", async () => {
  const child = spawn(process.execPath, [join(ROOT, "agents", "examples", "plain-js-agent.mjs")], {
    cwd: ROOT,
    env: { ...process.env, A2A_HUB_URL: `${router.url.replace(/^http/, "ws")}/hub` },
    stdio: ["ignore", "ignore", "pipe"],
  });
  const exited = new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)));
  let stderr = "";
  await new Promise<void>((resolve, reject) => {
    child.stderr!.setEncoding("utf8").on("data", (d: string) => {
      stderr += d;
      if (stderr.includes("registered as plain-js")) resolve();
    });
    child.once("close", () => reject(new Error(`agent exited: ${stderr}`)));
  });
  try {
    const events = await stream(router.url, "tasks/sendSubscribe", sendParams("plain-js", "one\ntwo"));
    expect(events.filter((e) => !e.result.final).map(text)).toEqual(["1: one\n", "2: two\n"]);
    const shout = await rpc(router.url, "tasks/send", sendParams("plain-js", "hey", { metadata: { skill: "shout" } }));
    expect(shout.status.message.parts[0].text).toBe("HEY");
  } finally {
    child.kill("SIGTERM");
    expect(await exited).toBe(0);
  }
});
