/**
 * What every bench scenario shares: child processes (routers, the bare bridge, the SDK server) so each
 * RSS is that process's own, a cheap SSE client, a hub agent that pushes pre-built frames, and statistics.
 * Only loopback addresses are used.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { readFileSync, rmSync } from "node:fs";
import { request, type ClientRequest, type IncomingMessage } from "node:http";
import { createServer as createNetServer } from "node:net";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { WebSocket } from "ws";
import { ROUTER_NODE_FLAGS } from "../router/node-flags.js";

const HERE = dirname(fileURLToPath(import.meta.url));
/** dist/bench; BENCH_ROUTER_DIST points the router child at another build (a "before" copy). */
export const ROUTER_DIST = process.env.BENCH_ROUTER_DIST ?? join(HERE, "..");
export const QUICK = process.argv.includes("--quick") || process.env.BENCH_QUICK === "1";
/** Rounds per measurement; the median is reported. */
export const ROUNDS = Number(process.env.BENCH_ROUNDS ?? (QUICK ? 1 : 3));

export interface Child {
  proc: ChildProcess;
  url: string;
  pid: number;
  rssKb(): number;
  stop(): Promise<void>;
}

/**
 * Starts a child that prints a JSON line holding `"url":"http://..."` once listening (pino's "a2a-router
 * listening" line for routers, `{"url": ...}` for the baselines). Its output is drained so a chatty child
 * never blocks on a full pipe.
 */
export async function startChild(script: string, args: string[], env: NodeJS.ProcessEnv = {}, nodeArgs: string[] = []): Promise<Child> {
  const proc = spawn(process.execPath, [...nodeArgs, script, ...args], {
    env: { ...process.env, LOG_LEVEL: "info", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  let found = false;
  const exited = new Promise<void>((r) => proc.once("exit", () => r()));
  const url = await new Promise<string>((resolve, reject) => {
    const onData = (d: Buffer) => {
      if (found) {
        if (process.env.BENCH_VERBOSE) process.stderr.write(d);
        return;
      }
      out += d;
      const m = out.match(/"url":"(http:\/\/127\.0\.0\.1:\d+)"/);
      if (m) {
        found = true;
        out = "";
        resolve(m[1]!);
      }
    };
    proc.stdout!.on("data", onData);
    proc.stderr!.on("data", (d) => {
      if (!found) out += d;
      else if (process.env.BENCH_VERBOSE) process.stderr.write(d);
    });
    void exited.then(() => reject(new Error(`${script} exited before listening:\n${out}`)));
  });
  return {
    proc,
    url,
    pid: proc.pid!,
    rssKb: () => rssKb(proc.pid!),
    async stop() {
      if (proc.exitCode === null) proc.kill("SIGTERM");
      const t = setTimeout(() => proc.kill("SIGKILL"), 5000);
      await exited;
      clearTimeout(t);
    },
  };
}

/** The router as a real process: bench/router-main.js of ROUTER_DIST, or of `dist` (serve plus the hosted bench agents). */
export async function startRouter(opts: { store?: string; env?: NodeJS.ProcessEnv; nodeArgs?: string[]; dist?: string } = {}): Promise<Child> {
  const db = (opts.store ?? process.env.BENCH_STORE) ? undefined : tmpDb();
  const args = ["--store", opts.store ?? process.env.BENCH_STORE ?? "sqlite:" + db];
  // BENCH_ROUTER_NODE_ARGS="--cpu-prof --cpu-prof-dir=/tmp/prof" profiles every router the bench starts.
  // Launched as npm start launches it (router/node-flags.ts); V8 takes the last of a repeated flag, so extra
  // arguments can override one.
  const nodeArgs = [...ROUTER_NODE_FLAGS, ...(opts.nodeArgs ?? process.env.BENCH_ROUTER_NODE_ARGS?.split(" ").filter(Boolean) ?? [])];
  // BENCH_ROUTER_ENV="K=V K=V": extra environment for every router and no other process (glibc's MALLOC_*, or
  // heaptrack's LD_PRELOAD and DUMP_HEAPTRACK_OUTPUT: docs/benchmarks.md, fifteenth pass).
  const extra = (process.env.BENCH_ROUTER_ENV ?? "").split(" ").filter((kv) => kv.includes("="));
  const env = { ...opts.env, ...Object.fromEntries(extra.map((kv) => [kv.slice(0, kv.indexOf("=")), kv.slice(kv.indexOf("=") + 1)])) };
  const child = await startChild(join(opts.dist ?? ROUTER_DIST, "bench", "router-main.js"), args, env, nodeArgs);
  if (!db) return child;
  // The bench's own database files go with their router.
  const stop = child.stop;
  child.stop = async () => {
    await stop();
    for (const f of [db, `${db}-wal`, `${db}-shm`, `${db}.pid`, `${db}.lock`]) rmSync(f, { force: true });
  };
  return child;
}

export function startBridge(env: NodeJS.ProcessEnv = {}): Promise<Child> {
  return startChild(join(HERE, "bridge.js"), [], env);
}

export function startSdkEcho(): Promise<Child> {
  return startChild(join(HERE, "sdk-echo.js"), []);
}

/** A server that answers every POST with a canned result (bench/canned.ts): node:http alone, or express. */
export function startCanned(kind: "raw" | "express"): Promise<Child> {
  return startChild(join(HERE, "canned.js"), [kind]);
}

/** A loopback port free now, for a server the bench names the port of (a face on a port of its own, gRPC's say). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createNetServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as import("node:net").AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

let dbSeq = 0;
export function tmpDb(): string {
  return `/tmp/a2a-bench-${process.pid}-${dbSeq++}.db`;
}

/** VmRSS of a process, in KB (Linux /proc). */
export function rssKb(pid: number): number {
  const m = readFileSync(`/proc/${pid}/status`, "utf8").match(/VmRSS:\s+(\d+)/);
  return m ? Number(m[1]) : NaN;
}

/** Samples a process's RSS every `ms` until stopped; returns the peak. */
export function rssSampler(pid: number, ms = 50): { stop(): number } {
  let peak = rssKb(pid);
  const t = setInterval(() => {
    try {
      peak = Math.max(peak, rssKb(pid));
    } catch {
      // exited
    }
  }, ms);
  return {
    stop() {
      clearInterval(t);
      return peak;
    },
  };
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s.length === 0 ? NaN : s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
}

export function percentile(xs: number[] | Float64Array, p: number): number {
  const s = Float64Array.from(xs).sort();
  if (s.length === 0) return NaN;
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!;
}

export const fmt = (n: number, digits = 0) => n.toLocaleString("en", { maximumFractionDigits: digits, minimumFractionDigits: digits });

/** Wall-clock milliseconds comparable across this process's timers (latency stamps travel in events). */
export const nowMs = () => performance.timeOrigin + performance.now();

const DATA = Buffer.from("data: ");

export interface SseStream {
  req: ClientRequest;
  res?: IncomingMessage;
  /** Resolves with the number of events once the server ends the response. */
  done: Promise<number>;
  /** Resolves once the response headers arrived (the stream is open). */
  opened: Promise<void>;
  close(): void;
}

/**
 * A POST that answers SSE. `onEvent` gets each event's data line (frames split on blank lines; pings are
 * skipped). No keep-alive agent: every stream has its own socket, as browsers and SDK clients do.
 */
export function sseRequest(url: string, body: object, onEvent?: (data: string) => void, headers: Record<string, string> = {}): SseStream {
  const payload = JSON.stringify(body);
  let count = 0;
  let buf = "";
  const stream: SseStream = {} as SseStream;
  let open!: () => void;
  let refused!: (err: unknown) => void;
  // A stream that never opens (a connection error) fails whoever awaits `opened`, and no one else.
  stream.opened = new Promise<void>((resolve, reject) => void ([open, refused] = [resolve, reject]));
  stream.opened.catch(() => {});
  stream.done = new Promise<number>((resolve, reject) => {
    const req = request(
      url,
      { method: "POST", agent: false, headers: { "content-type": "application/json", "content-length": Buffer.byteLength(payload), ...headers } },
      (res) => {
        stream.res = res;
        open();
        if (!onEvent) {
          // Counting only: scan the bytes for frame starts, no decoding (the client must not be the bottleneck).
          // A "data: " split across chunks is caught by keeping the last 5 bytes.
          let tail: Buffer = Buffer.alloc(0);
          res.on("data", (chunk: Buffer) => {
            const b = tail.length ? Buffer.concat([tail, chunk]) : chunk;
            for (let at = b.indexOf(DATA); at >= 0; at = b.indexOf(DATA, at + 6)) count++;
            tail = b.subarray(Math.max(0, b.length - 5));
          });
        } else {
          res.setEncoding("utf8");
          res.on("data", (chunk: string) => {
            buf += chunk;
            let at: number;
            while ((at = buf.indexOf("\n\n")) >= 0) {
              const frame = buf.slice(0, at);
              buf = buf.slice(at + 2);
              const d = frame.indexOf("data: ");
              if (d < 0) continue;
              count++;
              onEvent(frame.slice(d + 6));
            }
          });
        }
        res.on("end", () => resolve(count));
        res.on("error", reject);
        res.on("close", () => resolve(count));
      },
    );
    req.on("error", (err) => {
      refused(err);
      reject(err);
    });
    req.end(payload);
    stream.req = req;
  });
  stream.close = () => stream.req.destroy();
  return stream;
}

/** A plain JSON-RPC POST over a keep-alive agent; resolves with the parsed body. */
export function rpcCall(url: string, body: object, agent: import("node:http").Agent): Promise<unknown> {
  const payload = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      { method: "POST", agent, headers: { "content-type": "application/json", "content-length": Buffer.byteLength(payload) } },
      (res) => {
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (c: string) => (text += c));
        res.on("end", () => {
          try {
            resolve(JSON.parse(text));
          } catch (err) {
            reject(err);
          }
        });
      },
    );
    req.on("error", reject);
    req.end(payload);
  });
}

export const sendSubscribe = (id: string, agent: string, text = "go") => ({
  jsonrpc: "2.0",
  id: 1,
  method: "tasks/sendSubscribe",
  params: { id, message: { role: "user", parts: [{ type: "text", text }] }, metadata: { agent } },
});

/**
 * A hub agent (CONTRACT 5) speaking raw frames: `onExecute(taskId, text)` is called for each task.execute.
 * Updates go out as notifications (no id, so no acks) built by string concatenation, so the agent itself
 * costs as little CPU as possible; `send` respects the socket's backpressure through `writable()`.
 */
export class BenchAgent {
  ws!: WebSocket;
  onExecute: (taskId: string, text: string) => void = () => {};

  static async connect(baseUrl: string, name: string): Promise<BenchAgent> {
    const a = new BenchAgent();
    a.ws = new WebSocket(baseUrl.replace(/^http/, "ws") + "/hub", { perMessageDeflate: false });
    await new Promise<void>((resolve, reject) => {
      a.ws.once("error", reject);
      a.ws.on("message", (data) => {
        const frame = JSON.parse(data.toString()) as {
          id?: string;
          method?: string;
          params?: { id: string; message?: { parts?: Array<{ text?: string }> } };
          result?: unknown;
          error?: { message: string };
        };
        if (frame.method === "connection.established") {
          a.ws.send(JSON.stringify({ jsonrpc: "2.0", id: "reg", method: "agent.register", params: { agent_name: name, streaming: true } }));
        } else if (frame.id === "reg") {
          if (frame.error) reject(new Error(frame.error.message));
          else resolve();
        } else if (frame.method === "task.execute") {
          a.onExecute(frame.params!.id, frame.params!.message?.parts?.[0]?.text ?? "");
        }
      });
    });
    return a;
  }

  /**
   * A working status whose text is `text` (numbers and stamps only: no escaping needed); `textKind` names its
   * kind (CONTRACT 9: without it a hub status is a chunk of the answer, "delta").
   */
  status(taskId: string, text: string, textKind?: "delta" | "progress"): void {
    const meta = textKind ? `,"metadata":{"textKind":"${textKind}"}` : "";
    this.ws.send(
      `{"jsonrpc":"2.0","method":"task.status","params":{"task_id":"${taskId}","status":{"state":"working","message":{"role":"agent","parts":[{"type":"text","text":"${text}"}]}},"final":false${meta}}}`,
    );
  }

  artifact(taskId: string, text: string, append: boolean): void {
    this.ws.send(
      `{"jsonrpc":"2.0","method":"task.artifact","params":{"task_id":"${taskId}","artifact":{"parts":[{"type":"text","text":"${text}"}],"index":0,"append":${append}}}}`,
    );
  }

  complete(taskId: string, text = "done"): void {
    this.ws.send(
      `{"jsonrpc":"2.0","method":"task.complete","params":{"task_id":"${taskId}","status":{"state":"completed","message":{"role":"agent","parts":[{"type":"text","text":"${text}"}]}},"final":true}}`,
    );
  }

  /**
   * Resolves once the socket's send buffer is below `bytes`. Waits for the socket's 'drain' rather than
   * polling: a poll per loop turn spins on the two cores the server shares with the load generator, and spins
   * longest against the slower server (it cost ~10 us per relayed event against the router, ~0 against the
   * bridge: docs/benchmarks.md, sixth pass).
   */
  async writable(bytes = 1 << 20): Promise<void> {
    while (this.ws.bufferedAmount > bytes && !this.socket.destroyed) await (this.#drained ??= this.#drain());
  }

  /** One wait for the socket's next 'drain' (or close), shared by every pump of this agent. */
  #drained: Promise<void> | undefined;

  #drain(): Promise<void> {
    const socket = this.socket;
    return new Promise<void>((resolve) => {
      const done = (): void => {
        socket.off("drain", done).off("close", done);
        this.#drained = undefined;
        resolve();
      };
      socket.on("drain", done).on("close", done);
    });
  }

  /** The connection's TCP socket (ws keeps it private): the pumps cork it, `writable` waits on it. */
  get socket(): import("node:net").Socket {
    return (this.ws as unknown as { _socket: import("node:net").Socket })._socket;
  }

  close(): void {
    this.ws.terminate();
  }
}

/** The text of the first part of a status event in an SSE data line, without parsing the JSON. */
export function eventText(data: string): string | undefined {
  const at = data.indexOf('"text":"');
  if (at < 0) return undefined;
  return data.slice(at + 8, data.indexOf('"', at + 8));
}

export interface Section {
  title: string;
  lines: string[];
}

export function log(line: string): void {
  process.stdout.write(line + "\n");
}

/** CPU time (user + system) a process has used so far, in milliseconds (clock ticks of 10 ms). */
export function cpuMs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/** Runs `fn` alternately against each target for ROUNDS rounds; returns each target's results in order. */
export async function alternate<T>(targets: string[], fn: (target: string, round: number) => Promise<T>): Promise<Map<string, T[]>> {
  const out = new Map<string, T[]>(targets.map((t) => [t, []]));
  for (let round = 0; round < ROUNDS; round++) {
    // Who goes first alternates too, so neither always runs on a warmer (or busier) machine.
    const order = round % 2 ? [...targets].reverse() : targets;
    for (const t of order) out.get(t)!.push(await fn(t, round));
  }
  return out;
}
