import { execFile } from "node:child_process";
import { randomUUID } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, test } from "@jest/globals";
import {
  AnswerError,
  callResult,
  type ClientCall,
  isEventStream,
  patientDispatcher,
  readEvents,
  readJson,
  sendCall,
  TransportError,
} from "../../router/client/index.js";
import type { Message } from "../../router/core/model.js";
import { AnswerNotInDialect, type ClientCodec, clientCodec, type ClientEvent, dialectOfVersion, majorMinor } from "../../router/dialects/index.js";
import type { RunningRouter } from "../../router/index.js";
import { ensureBuilt } from "../cli/build.js";
import { testRouter } from "../helpers/router.js";

const run = promisify(execFile);

/**
 * Each dialect's client codec, over each binding, through the one client transport against a real router
 * (the echo agent): what a codec builds is what the router's faces serve, and what they answer the codec
 * reads back in the client's shapes. Then the transport's failures, as faults a caller words itself.
 */

const MAX = 1024 * 1024;

/** One call, its answer unwrapped in its binding (what the CLI and the upstream connector each do). */
async function call(endpoint: string, c: ClientCall): Promise<unknown> {
  const res = await sendCall(endpoint, c);
  return callResult(await readJson(res, MAX), c);
}

/** A streaming call's events, read with the codec until the turn ends. */
async function stream(endpoint: string, codec: ClientCodec, c: ClientCall): Promise<ClientEvent[]> {
  const res = await sendCall(endpoint, c, { stream: true });
  expect(isEventStream(res)).toBe(true);
  const out: ClientEvent[] = [];
  for await (const event of readEvents(res, { maxEventBytes: MAX, idleMs: 10_000 })) {
    out.push(...codec.readEvent(callResult(event.data, c)));
    if (out.some((e) => e.kind === "status" && e.final)) break;
  }
  return out;
}

function hello(text: string, taskId?: string): Message {
  return { role: "user", parts: [{ kind: "text", text }], messageId: randomUUID(), ...(taskId !== undefined && { taskId }) };
}

let router: RunningRouter;
beforeAll(async () => {
  router = await testRouter({ eliza: false });
});
afterAll(() => router?.close());

const CODECS: Array<[string, () => ClientCodec, () => string]> = [
  ["v0.1 JSON-RPC", () => clientCodec("v0.1"), () => `${router.url}/agents/echo`],
  ["v0.3 JSON-RPC", () => clientCodec("v0.3"), () => `${router.url}/agents/echo`],
  ["v1.0 JSON-RPC", () => clientCodec("v1.0"), () => `${router.url}/agents/echo`],
  ["v1.0 HTTP+JSON", () => clientCodec("v1.0", "HTTP+JSON"), () => `${router.url}/agents/echo/rest`],
];

describe.each(CODECS)("%s", (_name, codecOf, endpointOf) => {
  test("send, get, stream and cancel: the calls the router serves, the answers read back", async () => {
    const codec = codecOf();
    const endpoint = endpointOf();
    const named = codec.clientNamesTasks ? randomUUID() : undefined;
    const sent = codec.readSend(await call(endpoint, codec.send(hello("hi codec", named), {}, false)));
    expect(sent.status.state).toBe("completed");
    expect(JSON.stringify(sent)).toContain("hi codec");
    if (named) expect(sent.id).toBe(named);

    const got = codec.readTask(await call(endpoint, codec.get(sent.id)));
    expect(got).toMatchObject({ id: sent.id, status: { state: "completed" } });

    const events = await stream(endpoint, codec, codec.send(hello("streamed", codec.clientNamesTasks ? randomUUID() : undefined), {}, true));
    expect(events.at(-1)).toMatchObject({ kind: "status", final: true, status: { state: "completed" } });
    expect(JSON.stringify(events)).toContain("streamed");

    // A finished task cannot be canceled: the answer is an error, with the code the binding carries.
    const refused = await call(endpoint, codec.cancel(sent.id)).catch((err: unknown) => err);
    expect(refused).toBeInstanceOf(AnswerError);
    expect((refused as AnswerError).fault).toBe("error");
    expect(typeof (refused as AnswerError).error?.code).toBe("number");
  });

  test("push configs: set, get, list and delete where the dialect has them", async () => {
    const codec = codecOf();
    const endpoint = endpointOf();
    const sent = codec.readSend(await call(endpoint, codec.send(hello("push", codec.clientNamesTasks ? randomUUID() : undefined), {}, false)));
    const id = codec.dialect === "v0.1" ? undefined : "cfg-1";
    const set = codec.readPush(await call(endpoint, codec.pushSet({ taskId: sent.id, url: "http://127.0.0.1:9/hook", token: "tok", ...(id && { id }) })));
    expect(set).toEqual({ taskId: sent.id, url: "http://127.0.0.1:9/hook", token: "tok", ...(id && { id }) });
    expect(codec.readPush(await call(endpoint, codec.pushGet(sent.id, id)))).toEqual(set);
    if (!codec.pushList || !codec.pushDelete) return;
    expect(codec.readPushList!(await call(endpoint, codec.pushList(sent.id)))).toEqual([set]);
    await call(endpoint, codec.pushDelete(sent.id, id!));
    expect(codec.readPushList!(await call(endpoint, codec.pushList(sent.id)))).toEqual([]);
  });
});

describe("v1.0 ListTasks over both bindings", () => {
  test("the same page, read the same way", async () => {
    const rpc = clientCodec("v1.0");
    const rest = clientCodec("v1.0", "HTTP+JSON");
    const contextId = randomUUID();
    const message = { ...hello("listed"), contextId };
    await call(`${router.url}/agents/echo`, rpc.send(message, {}, false));
    const q = { contextId, state: "completed", pageSize: 10 };
    const viaRpc = rpc.readList!(await call(`${router.url}/agents/echo`, rpc.list!(q)));
    const viaRest = rest.readList!(await call(`${router.url}/agents/echo/rest`, rest.list!(q)));
    expect(viaRpc.tasks).toHaveLength(1);
    expect(viaRest).toEqual(viaRpc);
  });
});

describe("a patient request", () => {
  test("in a real process (not jest's sandbox, which has its own globals), is undici's Agent without deadlines", async () => {
    const bin = await ensureBuilt();
    const script = `import { patientDispatcher } from ${JSON.stringify(pathToFileURL(join(dirname(bin), "client", "index.js")).href)};
      const d = await patientDispatcher();
      const options = Object.getOwnPropertySymbols(d).map((s) => d[s]).find((v) => v && typeof v === "object" && "headersTimeout" in v);
      console.log(JSON.stringify({ dispatch: typeof d.dispatch, headersTimeout: options?.headersTimeout, bodyTimeout: options?.bodyTimeout }));`;
    const { stdout } = await run(process.execPath, ["--input-type=module", "-e", script]);
    expect(JSON.parse(stdout)).toEqual({ dispatch: "function", headersTimeout: 0, bodyTimeout: 0 });
  }, 300_000);

  test("is answered like any other (fetch's own dispatcher where the Agent is out of reach)", async () => {
    await patientDispatcher();
    const codec = clientCodec("v1.0");
    const c = codec.send(hello("patient"), {}, false);
    const res = await sendCall(`${router.url}/agents/echo`, c, { patient: true });
    expect(codec.readSend(callResult(await readJson(res, MAX), c)).status.state).toBe("completed");
  });
});

describe("reading answers", () => {
  test("an answer not in its dialect's shape is refused naming the field", () => {
    expect(() => clientCodec("v1.0").readSend({ task: { id: "t", contextId: "c", status: {} } })).toThrow(AnswerNotInDialect);
    expect(() => clientCodec("v0.3").readTask({ kind: "task", id: "t", contextId: "c", status: { state: 7 } })).toThrow(
      /^the target's answer is not A2A v0\.3: status\.state/,
    );
  });

  test("versions are parsed once: Major.Minor, a leading v, patch numbers", () => {
    expect(majorMinor("1.0.1")).toBe("1.0");
    expect(majorMinor("v0.3")).toBe("0.3");
    expect(majorMinor("one")).toBeUndefined();
    expect(dialectOfVersion("0.2")).toBe("v0.3");
    expect(dialectOfVersion("2.0")).toBeUndefined();
  });
});

describe("transport faults", () => {
  let server: Server;
  let base: string;
  beforeAll(async () => {
    server = createServer((req, res) => {
      if (req.url === "/not-json") return void res.writeHead(200, { "content-type": "application/json" }).end("<html>");
      if (req.url === "/cut") return void req.socket.destroy();
      if (req.url === "/half") {
        res.writeHead(200, { "content-type": "text/event-stream" });
        res.write(`data: ${JSON.stringify({ jsonrpc: "2.0", id: 1, result: {} })}\n\n`);
        setImmediate(() => req.socket.destroy());
        return;
      }
      res.writeHead(200, { "content-type": "text/event-stream" }).write(": heartbeat\n\n");
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => {
    server.closeAllConnections();
    server.close();
  });

  const probe: ClientCall = { method: "tasks/get", params: { id: "t" } };
  const faultOf = (p: Promise<unknown>) =>
    p.then(
      () => "none",
      (err: unknown) => (err instanceof TransportError ? err.fault : String(err)),
    );

  test("a port nobody listens on is unreachable, with the socket's own reason", async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const err = await sendCall(`http://127.0.0.1:${port}`, probe).catch((e: unknown) => e);
    expect(err).toMatchObject({ fault: "unreachable", connection: { code: "ECONNREFUSED" } });
  });

  test("a connection closed before the answer is cut; a body that is not JSON is not-json", async () => {
    expect(await faultOf(sendCall(`${base}/cut`, probe))).toBe("cut");
    expect(await faultOf(sendCall(`${base}/not-json`, probe).then((res) => readJson(res, MAX)))).toBe("not-json");
  });

  test("a stream cut after an event is lost; a silent one is idle; both after what came before", async () => {
    const seen: unknown[] = [];
    const read = async (path: string, idleMs?: number) => {
      const res = await sendCall(`${base}${path}`, probe, { stream: true });
      for await (const e of readEvents(res, { maxEventBytes: MAX, ...(idleMs !== undefined && { idleMs }) })) seen.push(callResult(e.data, probe));
    };
    expect(await faultOf(read("/half"))).toBe("lost");
    expect(seen).toEqual([{}]);
    expect(await faultOf(read("/quiet", 200))).toBe("idle");
  });
});
