import { afterAll, beforeAll, expect, test } from "@jest/globals";
import WebSocket from "ws";
import type { RunningRouter } from "../../router/index.js";
import { testRouter } from "../helpers/router.js";
import { RawAgent } from "../helpers/ws-agent.js";

/**
 * The failed-authentication limit (CONTRACT 12) covers the hub too: refused hub tokens count against the
 * client's address, and once over the limit that address's next upgrade is answered 429 with Retry-After,
 * as its HTTP requests are. One count per address for the whole router.
 */

let router: RunningRouter;

beforeAll(async () => {
  router = await testRouter({ config: { apiKeys: ["api-key-0123"], hub: { tokens: { "good-token": "worker" } }, limits: { authFailuresPerMinute: 3 } } });
});

afterAll(async () => {
  await router.close();
});

/** The status of a refused upgrade, or "open" when it was accepted. */
function upgrade(token: string): Promise<{ status: number | "open"; retryAfter?: string }> {
  return new Promise((resolve) => {
    const ws = new WebSocket(`${router.url.replace(/^http/, "ws")}/hub`, { headers: { authorization: `Bearer ${token}` } });
    ws.once("open", () => {
      ws.close();
      resolve({ status: "open" });
    });
    ws.once("unexpected-response", (_req, res) => {
      resolve({ status: res.statusCode!, ...(res.headers["retry-after"] !== undefined && { retryAfter: String(res.headers["retry-after"]) }) });
      res.resume();
    });
  });
}

test("refused hub tokens are throttled per address; the good token was fine until then", async () => {
  const good = new RawAgent(router.url, { token: "good-token" });
  expect((await good.register("worker")).result).toMatchObject({ registered: true });
  await good.close();
  for (let i = 0; i < 3; i++) {
    const bad = new RawAgent(router.url, { token: `wrong-${i}` });
    expect((await bad.register("worker")).error.message).toMatch(/token/);
    await bad.close();
  }
  const refused = await upgrade("good-token");
  expect(refused.status).toBe(429);
  expect(Number(refused.retryAfter)).toBeGreaterThan(0);
  // The same count guards the HTTP edge: one limit per address for the whole router.
  const http = await fetch(`${router.url}/agents`, { headers: { authorization: "Bearer api-key-0123" } });
  expect(http.status).toBe(429);
});
