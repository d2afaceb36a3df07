/**
 * What one large request costs the router's memory (CONTRACT 12: memory bounded by the bytes in flight): the
 * router as a real process (flags as `npm start`, V8's default heap), one echo request of BIG_BODY_MB (10 by
 * default) in each dialect, then six at once; RSS before, its peak while the requests run (sampled every 10
 * ms), and after they are answered and the router is idle again. `node dist/bench/big-body.js [--store
 * memory|sqlite]`; BIG_BODY_ORDER changes the order of the single requests.
 */
import { request } from "node:http";
import { fmt, log, rssKb, rssSampler, sleep, startRouter, type Child } from "./lib.js";

const MB = 1024 * 1024;
const BODY_BYTES = Number(process.env.BIG_BODY_MB ?? 10) * MB - 4096;
type Dialect = "v0.1" | "v0.3" | "v1.0";
/**
 * The order of the one-request rows (BIG_BODY_ORDER, e.g. `v1.0,v0.3,v0.1`): the first pays for heaps and
 * arenas growing for the first time, so a dialect's figure is compared in the same place.
 */
const ORDER = (process.env.BIG_BODY_ORDER ?? "v0.1,v0.3,v1.0").split(",").map((d) => {
  if (d !== "v0.1" && d !== "v0.3" && d !== "v1.0") throw new Error(`BIG_BODY_ORDER: not a dialect: ${d}`);
  return d as Dialect;
});

/** One echo request whose text is `bytes` long, in `dialect`; resolves once the whole answer is read. */
async function echo(url: string, dialect: Dialect, bytes: number, n: number): Promise<number> {
  const text = "x".repeat(bytes);
  const body =
    dialect === "v0.1"
      ? {
          jsonrpc: "2.0",
          id: 1,
          method: "tasks/send",
          params: { id: `big-${n}`, message: { role: "user", parts: [{ type: "text", text }] }, metadata: { agent: "echo" } },
        }
      : dialect === "v0.3"
        ? {
            jsonrpc: "2.0",
            id: 1,
            method: "message/send",
            params: { message: { kind: "message", messageId: `m-${n}`, role: "user", parts: [{ kind: "text", text }] }, metadata: { agent: "echo" } },
          }
        : {
            jsonrpc: "2.0",
            id: 1,
            method: "SendMessage",
            params: { message: { messageId: `m-${n}`, role: "ROLE_USER", parts: [{ text }] }, metadata: { agent: "echo" } },
          };
  // A connection of its own: a kept-alive one may be closing just as the next request is written on it.
  const { status, answer } = await new Promise<{ status: number; answer: string }>((resolve, reject) => {
    const req = request(
      `${url}/rpc`,
      { method: "POST", agent: false, headers: { "content-type": "application/json", "a2a-version": dialect === "v1.0" ? "1.0" : "0.3" } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, answer: Buffer.concat(chunks).toString() }));
        res.on("error", reject);
      },
    );
    req.on("error", reject);
    req.end(JSON.stringify(body));
  });
  if (status !== 200 || answer.slice(0, 100).includes('"error"')) throw new Error(`${dialect}: HTTP ${status} ${answer.slice(0, 200)}`);
  return answer.length;
}

/**
 * RSS once it has stopped falling (the router idle, its garbage collected as V8 sees fit), from 1.5 s after the
 * requests: the router makes a full collection once quiet for a second after large bodies (router/http/idle-collection.ts).
 */
async function settled(router: Child): Promise<number> {
  await sleep(1500);
  let last = rssKb(router.pid);
  for (let i = 0; i < 20; i++) {
    await sleep(250);
    const now = rssKb(router.pid);
    if (Math.abs(now - last) < 1024) return now;
    last = now;
  }
  return last;
}

async function measure(router: Child, label: string, requests: () => Promise<unknown>, accepted: number): Promise<string> {
  const before = await settled(router);
  const sampler = rssSampler(router.pid, 10);
  await requests();
  const peak = sampler.stop();
  const after = await settled(router);
  const growth = (peak - before) * 1024;
  return `${label.padEnd(22)} ${fmt(before / 1024).padStart(7)} ${fmt(peak / 1024).padStart(7)} ${fmt(after / 1024).padStart(7)}  ${fmt(growth / MB).padStart(6)} MiB = ${fmt(growth / accepted, 1).padStart(4)}x the body`;
}

export async function bigBody(store: string): Promise<string[]> {
  const router = await startRouter({ store: store === "memory" ? "memory" : undefined });
  const lines = [`store ${store}, body ${fmt(BODY_BYTES / MB, 1)} MiB; RSS MiB: before, peak, after; peak growth`];
  try {
    await echo(router.url, "v0.1", 1000, 0);
    let n = 1;
    for (const dialect of ORDER) {
      lines.push(await measure(router, `one ${dialect}`, () => echo(router.url, dialect, BODY_BYTES, n++), BODY_BYTES));
      log(lines[lines.length - 1]!);
    }
    lines.push(
      await measure(
        router,
        "six at once (v0.3)",
        () => Promise.all(Array.from({ length: 6 }, () => echo(router.url, "v0.3", BODY_BYTES, n++))),
        6 * BODY_BYTES,
      ),
    );
    log(lines[lines.length - 1]!);
  } finally {
    await router.stop();
  }
  return lines;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const at = process.argv.indexOf("--store");
  const stores = at > 0 ? [process.argv[at + 1]!] : ["memory", "sqlite"];
  for (const store of stores) {
    log(`\n${store}`);
    await bigBody(store);
  }
}
