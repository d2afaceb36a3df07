/**
 * What a server-streamed message costs the server's CPU on the wire alone, grpc-js's server against plain
 * node:http2 writing the same length-prefixed frames (docs/benchmarks.md, fifteenth pass): whether a server that
 * joins a batch's frames would be worth having for the gRPC face's streams. No router: pre-encoded messages of
 * GRPC_WIRE_SIZE bytes (250, a progress event's StreamResponse), handed out in batches of GRPC_WIRE_BATCH (64) a
 * job as the event stream hands them out; the client is a raw node:http2 client in a child process that counts
 * the answer's bytes (it decodes nothing), so the server's figure is its own.
 *
 * `node dist/bench/grpc-wire.js [mode...] [--messages N] [--rounds R]`; modes (all by default):
 * - `grpc`: grpc-js's ServerWritableStream as the face writes it (`write` until it returns false, then 'drain');
 *   `grpc:cb` a callback on each batch's last write instead, `grpc:all` every write without looking at the
 *   return value; option suffixes `:nochannelz` (grpc.enable_channelz 0), `:window` (grpc-node.flow_control_window
 *   16 MiB, a client option: the server ignores it), `:maxsend` (grpc.max_send_message_length -1), `:early` the face's
 *   write window (router/faces/grpc/write-window.ts: a send acknowledged at once within 64 KiB in flight; `:early4`
 *   4 KiB, `:early256` 256 KiB);
 * - `h2-each-cb`: node:http2, one write a frame, the next once its callback ran (what grpc-js does);
 * - `h2-each`: node:http2, one write a frame, waiting only on 'drain' (the stream joins what waits into a writev);
 * - `h2-join`: node:http2, a batch's frames joined into one buffer, one write a batch.
 */
import { fork, type ChildProcess } from "node:child_process";
import { connect, createServer, type ServerHttp2Stream } from "node:http2";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import { Server, ServerCredentials, type ServerWritableStream, type ServiceDefinition } from "@grpc/grpc-js";
import { writeWindow } from "../router/faces/grpc/write-window.js";

const PATH = "/bench.Wire/Stream";
const SIZE = Number(process.env.GRPC_WIRE_SIZE ?? 250);
const BATCH = Number(process.env.GRPC_WIRE_BATCH ?? 64);
const WINDOW = 1 << 24;
const MODES = [
  "grpc",
  "grpc:cb",
  "grpc:all",
  "grpc:nochannelz",
  "grpc:window",
  "grpc:maxsend",
  "grpc:early4",
  "grpc:early",
  "grpc:early256",
  "h2-each-cb",
  "h2-each",
  "h2-join",
];

interface Writer {
  /** false: wait for `drain` before the next write */
  write(i: number): boolean;
  drain(then: () => void): void;
  end(): void;
}

/** Hands out `n` writes in batches of BATCH, the next batch in a job of its own, as the face's relay does. */
function pump(n: number, w: Writer): void {
  let i = 0;
  const next = (): void => {
    const stop = Math.min(n, i + BATCH);
    while (i < stop) if (!w.write(i++)) return w.drain(() => setImmediate(i < n ? next : () => w.end()));
    if (i < n) setImmediate(next);
    else w.end();
  };
  next();
}

function grpcServer(mode: string, n: number, msg: Buffer): Promise<{ port: number; close(): void }> {
  const flags = mode.split(":");
  const options: Record<string, number> = {};
  if (flags.includes("nochannelz")) options["grpc.enable_channelz"] = 0;
  if (flags.includes("window")) options["grpc-node.flow_control_window"] = WINDOW;
  if (flags.includes("maxsend")) options["grpc.max_send_message_length"] = -1;
  // `early`: the face's write window (router/faces/grpc/write-window.ts), 64 KiB or `early<KiB>`.
  const early = flags.find((f) => f.startsWith("early"));
  const server = new Server({ ...options, ...(early && { interceptors: [writeWindow(Number(early.slice(5) || 64) * 1024)] }) });
  const id = (b: Buffer) => b;
  const definition = {
    Stream: {
      path: PATH,
      requestStream: false,
      responseStream: true,
      requestSerialize: id,
      requestDeserialize: id,
      responseSerialize: id,
      responseDeserialize: id,
    },
  };
  server.addService(definition as unknown as ServiceDefinition, {
    Stream(call: ServerWritableStream<Buffer, Buffer>) {
      if (flags.includes("cb")) {
        let i = 0;
        const next = (): void => {
          const stop = Math.min(n, i + BATCH);
          while (i < stop) call.write(msg, ++i === stop ? () => (i < n ? next() : call.end()) : undefined);
        };
        return next();
      }
      const all = flags.includes("all");
      pump(n, { write: () => call.write(msg) || all, drain: (f) => call.once("drain", f), end: () => call.end() });
    },
  });
  return new Promise((resolve, reject) =>
    server.bindAsync("127.0.0.1:0", ServerCredentials.createInsecure(), (err, port) =>
      err ? reject(err) : resolve({ port, close: () => server.forceShutdown() }),
    ),
  );
}

async function h2Server(mode: string, n: number, msg: Buffer): Promise<{ port: number; close(): void }> {
  const frame = Buffer.alloc(msg.length + 5);
  frame.writeUInt32BE(msg.length, 1);
  msg.copy(frame, 5);
  // A fresh frame a message, as a server that frames each message as it comes would have (grpc-js copies too).
  const framed = () => Buffer.concat([frame.subarray(0, 5), msg]);
  const server = createServer({ settings: { initialWindowSize: WINDOW } });
  server.on("stream", (stream: ServerHttp2Stream) => {
    stream.resume();
    stream.respond({ ":status": 200, "content-type": "application/grpc" }, { waitForTrailers: true });
    stream.on("wantTrailers", () => stream.sendTrailers({ "grpc-status": "0" }));
    const end = () => stream.end();
    if (mode === "h2-each-cb") {
      let i = 0;
      const one = (): void => void (i++ < n ? stream.write(framed(), one) : end());
      return one();
    }
    if (mode === "h2-each") return pump(n, { write: () => stream.write(framed()), drain: (f) => stream.once("drain", f), end });
    let sent = 0;
    const batch = (): void => {
      const k = Math.min(BATCH, n - sent);
      sent += k;
      const ok = stream.write(Buffer.concat(Array.from({ length: k }, () => frame)));
      if (sent >= n) end();
      else if (ok) setImmediate(batch);
      else stream.once("drain", () => setImmediate(batch));
    };
    batch();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { port: (server.address() as AddressInfo).port, close: () => server.close() };
}

/** The child: one call per message from the parent, answering with the bytes read and its own CPU. */
function client(port: string): void {
  const session = connect(`http://127.0.0.1:${port}`, { settings: { initialWindowSize: WINDOW } });
  session.on("connect", () => session.setLocalWindowSize(WINDOW));
  process.on("message", () => {
    const cpu0 = process.cpuUsage();
    const req = session.request({ ":method": "POST", ":path": PATH, "content-type": "application/grpc", te: "trailers" });
    let bytes = 0;
    req.on("data", (d: Buffer) => (bytes += d.length));
    req.on("end", () => {
      const cpu = process.cpuUsage(cpu0);
      process.send!({ bytes, us: cpu.user + cpu.system });
    });
    req.end(Buffer.alloc(5));
  });
}

async function measure(mode: string, n: number, rounds: number): Promise<string> {
  const msg = Buffer.alloc(SIZE, 7);
  const server = mode.startsWith("grpc") ? await grpcServer(mode, n, msg) : await h2Server(mode, n, msg);
  const child: ChildProcess = fork(fileURLToPath(import.meta.url), ["--client", String(server.port)], { stdio: "inherit" });
  const call = () =>
    new Promise<{ bytes: number; us: number }>((resolve) => {
      child.once("message", resolve);
      child.send("go");
    });
  try {
    await call(); // warm-up
    const rows: { rate: number; server: number; client: number }[] = [];
    for (let r = 0; r < rounds; r++) {
      const cpu0 = process.cpuUsage();
      const t0 = performance.now();
      const { bytes, us } = await call();
      const ms = performance.now() - t0;
      const cpu = process.cpuUsage(cpu0);
      if (bytes !== n * (SIZE + 5)) throw new Error(`${mode}: ${bytes} bytes for ${n} messages`);
      rows.push({ rate: (n / ms) * 1000, server: (cpu.user + cpu.system) / n, client: us / n });
    }
    const med = (k: "rate" | "server" | "client") => rows.map((r) => r[k]).sort((a, b) => a - b)[rows.length >> 1]!;
    return `${mode.padEnd(16)} ${Math.round(med("rate")).toLocaleString("en-US").padStart(10)} msg/s  server ${med("server").toFixed(2).padStart(5)} us/msg  client ${med("client").toFixed(2).padStart(5)} us/msg  (server by round: ${rows.map((r) => r.server.toFixed(2)).join(" ")})`;
  } finally {
    child.kill();
    server.close();
  }
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const opt = (name: string, dflt: number) => (args.includes(name) ? Number(args[args.indexOf(name) + 1]) : dflt);
  const n = opt("--messages", 100_000);
  const rounds = opt("--rounds", 5);
  const modes = args.filter((a, i) => !a.startsWith("--") && !args[i - 1]?.startsWith("--"));
  for (const m of modes) if (!MODES.includes(m)) throw new Error(`not a mode: ${m} (${MODES.join(", ")})`);
  console.log(`grpc-wire: ${SIZE} B messages x ${n}, batches of ${BATCH}, ${rounds} rounds (median), Node ${process.version}`);
  for (const m of modes.length > 0 ? modes : MODES) console.log(await measure(m, n, rounds));
}

if (process.argv[2] === "--client") client(process.argv[3]!);
else
  main().then(
    () => process.exit(0),
    (err: unknown) => {
      console.error(err);
      process.exit(1);
    },
  );
