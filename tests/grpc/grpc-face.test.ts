import { afterAll, beforeAll, describe, expect, test } from "@jest/globals";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import type { Duplex } from "node:stream";
import {
  type ChannelCredentials,
  type Client,
  credentials,
  loadPackageDefinition,
  makeGenericClientConstructor,
  Metadata,
  type ServiceError,
  status as Status,
} from "@grpc/grpc-js";
import { loadSync } from "@grpc/proto-loader";
import { service as healthService } from "grpc-health-check";
import { TASK_ERROR_REASONS } from "../../router/core/errors.js";
import { GRPC_REASON_CODES } from "../../router/faces/grpc/index.js";
import type { RunningRouter } from "../../router/index.js";
import { packageRoot } from "../../router/schema/paths.js";
import { counterAgent, gatedAgent } from "../helpers/agents.js";
import { testRouter } from "../helpers/router.js";
import { until } from "../helpers/until.js";
import { type Json, type RawClient, rawClient, statusOf, userMessage } from "./raw-client.js";

/**
 * The gRPC face with a plain @grpc/grpc-js client: metadata both ways (last-event-id), the status details
 * trailer of every error, tenants, limits, the client going away, health.
 */

const require = createRequire(import.meta.url);
let router: RunningRouter;
let client: RawClient;
const gate = gatedAgent("gated");

beforeAll(async () => {
  router = await testRouter({
    eliza: false,
    hostedAgents: [counterAgent("counter", 5), gate.agent],
    config: { grpc: { port: 0 }, limits: { maxBodyBytes: 64 * 1024 } },
  });
  client = rawClient(`127.0.0.1:${router.grpcPort}`);
});

afterAll(async () => {
  gate.release();
  client.close();
  await router.close();
});

const send = (text: string, tenant?: string): Json => ({ ...(tenant !== undefined && { tenant }), message: userMessage(text) });
/** The payload case of each StreamResponse. */
const cases = (messages: Json[]) => messages.map((m) => Object.keys(m)[0]);

describe("the gRPC face's errors", () => {
  test("every reason has a status code, and docs/errors.md's gRPC table is that table", () => {
    const doc = readFileSync(join(packageRoot(), "docs", "errors.md"), "utf8");
    const rows = Object.fromEntries([...doc.matchAll(/^\| ([a-z-]+) \| ([A-Z_]+) \|$/gm)].map((m) => [m[1], Status[m[2] as keyof typeof Status]]));
    expect(rows).toEqual(GRPC_REASON_CODES);
    expect(Object.keys(GRPC_REASON_CODES).sort()).toEqual([...TASK_ERROR_REASONS].sort());
  });

  test("an unknown task is NOT_FOUND with a TASK_NOT_FOUND ErrorInfo", async () => {
    const err = await client.unary("GetTask", { id: "no-such-task" }).catch((e: unknown) => e);
    expect(statusOf(err)).toMatchObject({ code: Status.NOT_FOUND, info: { reason: "TASK_NOT_FOUND", domain: "a2a-protocol.org" } });
  });

  test("bytes that are not the request type are INVALID_ARGUMENT naming the type", async () => {
    const err = await client.unary("SendMessage", new Uint8Array([0xff, 0xff, 0xff])).catch((e: unknown) => e);
    const s = statusOf(err);
    expect(s).toMatchObject({ code: Status.INVALID_ARGUMENT, info: { reason: "INVALID_PARAMS" } });
    expect(s.details).toMatch(/lf\.a2a\.v1\.SendMessageRequest/);
  });

  test("a message with no parts is INVALID_ARGUMENT naming the field", async () => {
    const err = await client.unary("SendMessage", { message: { messageId: "m-empty", role: "ROLE_USER" } }).catch((e: unknown) => e);
    const s = statusOf(err);
    expect(s.code).toBe(Status.INVALID_ARGUMENT);
    expect(s.info?.reason).toBe("INVALID_PARAMS");
    expect(s.details).toMatch(/parts/);
    expect(s.details).not.toMatch(/at |\.ts|TypeError/);
  });

  test("an unknown tenant is NOT_FOUND naming it", async () => {
    const err = await client.unary("SendMessage", send("hi", "nobody-here")).catch((e: unknown) => e);
    const s = statusOf(err);
    expect(s.code).toBe(Status.NOT_FOUND);
    expect(s.details).toMatch(/nobody-here/);
  });

  test("an unsupported a2a-version metadata is FAILED_PRECONDITION with VERSION_NOT_SUPPORTED", async () => {
    const err = await client.unary("GetTask", { id: "x" }, { "a2a-version": "9.9" }).catch((e: unknown) => e);
    expect(statusOf(err)).toMatchObject({ code: Status.FAILED_PRECONDITION, info: { reason: "VERSION_NOT_SUPPORTED" } });
  });

  test("a message over limits.maxBodyBytes is RESOURCE_EXHAUSTED and the connection serves on", async () => {
    const err = await client.unary("SendMessage", send("x".repeat(70 * 1024))).catch((e: unknown) => e);
    expect((err as ServiceError).code).toBe(Status.RESOURCE_EXHAUSTED);
    const ok = await client.unary("SendMessage", send("small"));
    expect((ok.task as Json).status).toMatchObject({ state: "TASK_STATE_COMPLETED" });
  });
});

describe("Idempotency-Key metadata (CONTRACT 14)", () => {
  test("a retried SendMessage with the same key answers the same task; another request with it is ALREADY_EXISTS", async () => {
    const request = send("once", "counter");
    const first = await client.unary("SendMessage", request, { "idempotency-key": "grpc-key-1" });
    const again = await client.unary("SendMessage", request, { "idempotency-key": "grpc-key-1" });
    expect((again.task as Json).id).toBe((first.task as Json).id);
    const err = await client.unary("SendMessage", send("another", "counter"), { "idempotency-key": "grpc-key-1" }).catch((e: unknown) => e);
    expect(statusOf(err)).toMatchObject({ code: Status.ALREADY_EXISTS });
  });
});

describe("tenants and streams", () => {
  test("the tenant picks the agent; no tenant is the default agent", async () => {
    const counted = await client.unary("SendMessage", send("go", "counter"));
    expect(((counted.task as Json).status as Json).message).toMatchObject({ parts: [{ text: "counted to 5" }] });
    const echoed = await client.unary("SendMessage", send("plain"));
    expect(((echoed.task as Json).status as Json).message).toMatchObject({ parts: [{ text: "plain" }] });
  });

  test("a stream says the seq its events follow, and last-event-id resumes exactly after any of them", async () => {
    const first = client.stream("SendStreamingMessage", send("count", "counter"));
    const headers = await first.headers;
    expect(headers.get("last-event-id")).toEqual(["0"]);
    const all = await first.messages;
    expect(cases(all)).toEqual(["task", ...Array(5).fill("artifactUpdate"), "statusUpdate"]);
    const taskId = (all[0]!.task as Json).id as string;
    // Every message after the opening Task is a logged event: the k-th has seq 0 + k.
    for (const after of [0, 3, 6]) {
      const resumed = client.stream("SubscribeToTask", { tenant: "counter", id: taskId }, { "last-event-id": String(after) });
      expect(await resumed.messages).toEqual(all.slice(1 + after));
    }
  });

  test("a malformed last-event-id is INVALID_ARGUMENT", async () => {
    const done = await client.unary("SendMessage", send("x", "counter"));
    const s = client.stream("SubscribeToTask", { id: (done.task as Json).id }, { "last-event-id": "abc" });
    const err = await s.messages.catch((e: unknown) => e);
    expect(statusOf(err)).toMatchObject({ code: Status.INVALID_ARGUMENT, info: { reason: "INVALID_PARAMS" } });
  });

  test("the client cancelling its stream never cancels the task", async () => {
    const s = client.stream("SendStreamingMessage", send("wait", "gated"));
    await until(() => s.received.length >= 2);
    const taskId = (s.received[0]!.task as Json).id as string;
    s.cancel();
    await s.messages.catch(() => undefined);
    expect((await client.unary("GetTask", { id: taskId })).status).toMatchObject({ state: "TASK_STATE_WORKING" });
    gate.release();
    await until(async () => ((await client.unary("GetTask", { id: taskId })).status as Json).state === "TASK_STATE_COMPLETED");
  });

  test("grpc.health.v1 answers SERVING for the server and for lf.a2a.v1.A2AService", async () => {
    const Health = makeGenericClientConstructor(healthService as never, "Health");
    const health = new Health(`127.0.0.1:${router.grpcPort}`, credentials.createInsecure()) as Client &
      Record<string, (req: unknown, md: Metadata, cb: (err: Error | null, res: { status: string }) => void) => void>;
    const check = (service: string) =>
      new Promise<{ status: string }>((resolve, reject) =>
        health.Check!({ service }, new Metadata(), (err: Error | null, res: { status: string }) => (err ? reject(err) : resolve(res))),
      );
    expect(await check("")).toEqual({ status: "SERVING" });
    expect(await check("lf.a2a.v1.A2AService")).toEqual({ status: "SERVING" });
    health.close();
  });

  test("server reflection lists the A2A service and health (what grpcurl reads)", async () => {
    const proto = join(dirname(require.resolve("@grpc/reflection")), "..", "proto", "grpc", "reflection", "v1", "reflection.proto");
    const pkg = loadPackageDefinition(loadSync(proto)) as unknown as {
      grpc: { reflection: { v1: { ServerReflection: new (address: string, creds: ChannelCredentials) => Client & Record<string, () => Duplex> } } };
    };
    const reflection = new pkg.grpc.reflection.v1.ServerReflection(`127.0.0.1:${router.grpcPort}`, credentials.createInsecure());
    const call = reflection.ServerReflectionInfo!();
    const answer = new Promise<{ listServicesResponse: { service: Array<{ name: string }> } }>((resolve, reject) =>
      call.once("data", resolve).once("error", reject),
    );
    call.write({ listServices: "" });
    const names = (await answer).listServicesResponse.service.map((s) => s.name);
    call.end();
    reflection.close();
    expect(names).toEqual(expect.arrayContaining(["lf.a2a.v1.A2AService", "grpc.health.v1.Health"]));
  });
});
