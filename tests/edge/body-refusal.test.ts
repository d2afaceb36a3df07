import { afterAll, beforeAll, describe, expect, test } from "@jest/globals";
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import type { RunningRouter } from "../../router/index.js";
import { testRouter } from "../helpers/router.js";

const run = promisify(execFile);

/**
 * limits.bodyBytesInFlight (CONTRACT 12, SECURITY.md row 13): a body that does not fit is answered 503 with
 * Retry-After, and the client reads that answer whole, however much of its body it was still sending. The
 * router reads and discards the refused body (up to the size it declared, at most maxBodyBytes) before it
 * answers and closes, so the close never meets unread bytes (which would reset the connection: EPIPE or
 * ECONNRESET on the client's side, with the 503 lost).
 */

const CLIENTS = 16;
const BODY_BYTES = 10 * 1024 * 1024;

/**
 * The clients run in their own process, as real clients do: within the router's process the client side reads
 * the answer before the close's reset can reach it, and the failure never shows.
 */
const CLIENT_SCRIPT = `
import { request } from "node:http";
const [url, clients, bytes] = [process.argv[1], Number(process.argv[2]), Number(process.argv[3])];
const filler = " ".repeat(bytes - 200);
function post(i) {
  const body = filler + JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tasks/get", params: { id: "missing-" + i } });
  return new Promise((resolve) => {
    const req = request(url + "/rpc", { method: "POST", agent: false, headers: { "content-type": "application/json", "content-length": String(Buffer.byteLength(body)) } }, (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (c) => (text += c));
      res.on("end", () => resolve({ status: res.statusCode, retryAfter: res.headers["retry-after"], body: text }));
      res.on("error", (err) => resolve({ error: err.code ?? err.message }));
    });
    req.on("error", (err) => resolve({ error: err.code ?? err.message }));
    req.end(body);
  });
}
console.log(JSON.stringify(await Promise.all(Array.from({ length: clients }, (_, i) => post(i)))));
`;

interface Outcome {
  status?: number;
  retryAfter?: string;
  body?: string;
  error?: string;
}

/** Runs CLIENTS concurrent POSTs of `bytes` each from a child process; their outcomes. */
async function fromAnotherProcess(url: string, clients: number, bytes: number): Promise<Outcome[]> {
  const { stdout } = await run(process.execPath, ["--input-type=module", "-e", CLIENT_SCRIPT, url, String(clients), String(bytes)], {
    maxBuffer: 16 * 1024 * 1024,
  });
  return JSON.parse(stdout) as Outcome[];
}

describe("a refused body always gets its 503", () => {
  let router: RunningRouter;
  beforeAll(async () => {
    // Room for two bodies at once: most of the 16 are refused while the first ones are read.
    router = await testRouter({ eliza: false, config: { limits: { bodyBytesInFlight: 2 * BODY_BYTES } } });
  });
  afterAll(() => router.close());

  test(`${CLIENTS} concurrent ${BODY_BYTES / 1024 / 1024} MiB bodies: each gets a whole 200 or 503 with Retry-After, no reset`, async () => {
    let refused = 0;
    {
      const outcomes = await fromAnotherProcess(router.url, CLIENTS, BODY_BYTES);
      expect(outcomes).toHaveLength(CLIENTS);
      for (const o of outcomes) {
        expect(o.error).toBeUndefined();
        expect([200, 503]).toContain(o.status);
        const parsed = JSON.parse(o.body!);
        if (o.status === 503) {
          refused++;
          expect(o.retryAfter).toBe("1");
          expect(parsed.error.message).toMatch(/bodyBytesInFlight/);
        } else expect(parsed.error.code).toBe(-32001);
      }
    }
    expect(refused).toBeGreaterThan(0);
    // Nothing is left reserved once every exchange ended.
    expect((await fromAnotherProcess(router.url, 1, BODY_BYTES))[0]!.status).toBe(200);
  }, 120_000);
});
