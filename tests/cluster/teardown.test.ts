import { spawn } from "node:child_process";
import { once } from "node:events";
import { randomUUID } from "node:crypto";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, describe, expect, test } from "@jest/globals";
import { deleteKeys, REDIS_URL, redisReachable, START_REDIS } from "../helpers/redis.js";
import { ROOT } from "../helpers/spawn-router.js";

/**
 * Routers on one Redis store, started and closed in one process (as in-process tests do), leave nothing that
 * keeps it alive: closed, the process exits on its own. Runs the compiled router (`npm run build` first).
 */
const reachable = await redisReachable();
const prefix = `a2a-router-test:teardown:${randomUUID()}:`;
const MARK = "open after close: ";

/** Starts two routers on the store, closes both (one of them twice), then prints what still holds the loop. */
const CHILD = `
import { startRouter } from ${JSON.stringify(pathToFileURL(join(ROOT, "dist", "router", "index.js")).href)};
const opts = { host: "127.0.0.1", port: 0, store: process.env.STORE, config: { redisPrefix: process.env.PREFIX } };
const a = await startRouter(opts);
const b = await startRouter(opts);
await a.close();
await Promise.all([b.close(), b.close()]);
// Its stdout and stderr, piped to the test, are listed too (they hold nothing open).
const open = () => process.getActiveResourcesInfo().filter((r) => r !== "PipeWrap");
setImmediate(() => console.log(${JSON.stringify(MARK)} + JSON.stringify(open())));
`;

if (!reachable) {
  describe("closing Redis routers", () => {
    test("needs Redis", () => {
      if (process.env.CI === "true") throw new Error(`Redis is unreachable: ${START_REDIS}`);
      process.stderr.write(`teardown tests skipped: Redis is unreachable; ${START_REDIS}\n`);
    });
  });
} else {
  describe("closing Redis routers", () => {
    afterAll(async () => {
      await deleteKeys(prefix);
    });

    test("two routers on one store, closed, leave no socket or timer: their process exits on its own", async () => {
      const child = spawn(process.execPath, ["--input-type=module", "-e", CHILD], {
        cwd: ROOT,
        env: { ...process.env, STORE: REDIS_URL, PREFIX: prefix },
        stdio: ["ignore", "pipe", "pipe"],
      });
      let out = "";
      child.stdout.on("data", (d: Buffer) => void (out += d.toString()));
      child.stderr.on("data", (d: Buffer) => void (out += d.toString()));
      const [code, signal] = (await once(child, "exit")) as [number | null, NodeJS.Signals | null];
      expect({ code, signal, out: code === 0 ? "" : out }).toEqual({ code: 0, signal: null, out: "" });
      const line = out.split("\n").find((l) => l.startsWith(MARK));
      expect(line && JSON.parse(line.slice(MARK.length))).toEqual([]);
    }, 60_000);
  });
}
