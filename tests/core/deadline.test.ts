import { afterAll, beforeAll, expect, test } from "@jest/globals";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { deadline } from "../../router/client/index.js";

/**
 * Deadlines of outgoing requests must survive a garbage collection while the request waits: on Node 20 a
 * fetch given AbortSignal.any([..., AbortSignal.timeout(ms)]) never aborts once a GC has run in between,
 * which once left a push test waiting on a hanging webhook forever.
 */

setFlagsFromString("--expose-gc");
const gc = runInNewContext("gc") as () => void;

let server: Server;
let url = "";
beforeAll(async () => {
  server = createServer(() => undefined); // accepts and never answers
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

/** Collects garbage on every macrotask until `p` settles. */
async function collectingUntil<T>(p: Promise<T>): Promise<T> {
  let settled = false;
  const done = p.finally(() => (settled = true));
  done.catch(() => undefined);
  while (!settled) {
    gc();
    await new Promise((r) => setImmediate(r));
  }
  return done;
}

test("a fetch to a server that never answers is aborted by its deadline despite garbage collections", async () => {
  const limit = deadline(150);
  const request = fetch(url, { method: "POST", body: "x", signal: limit.signal });
  await expect(collectingUntil(request)).rejects.toMatchObject({ name: "TimeoutError" });
  limit.clear();
});

test("aborting the parent aborts the request with the parent's reason", async () => {
  const parent = new AbortController();
  const limit = deadline(60_000, parent.signal);
  const request = fetch(url, { method: "POST", body: "x", signal: limit.signal });
  setImmediate(() => parent.abort(new Error("router closing")));
  await expect(collectingUntil(request)).rejects.toThrow("router closing");
  limit.clear();
});

test("an already aborted parent aborts at once; clear() detaches from the parent", () => {
  const gone = new AbortController();
  gone.abort(new Error("gone"));
  expect(deadline(1000, gone.signal).signal.aborted).toBe(true);

  const parent = new AbortController();
  const limit = deadline(1000, parent.signal);
  limit.clear();
  parent.abort();
  expect(limit.signal.aborted).toBe(false);
});
