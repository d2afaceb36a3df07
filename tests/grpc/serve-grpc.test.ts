import { afterAll, describe, expect, test } from "@jest/globals";
import { configFromEnv, resolveConfig } from "../../router/config/load.js";
import type { RunningRouter } from "../../router/index.js";
import { SchemaRegistry } from "../../router/schema/validator.js";
import { gatedAgent } from "../helpers/agents.js";
import { testRouter } from "../helpers/router.js";
import { until } from "../helpers/until.js";
import { spawnRouter, type RouterProcess } from "../helpers/spawn-router.js";
import { type Json, rawClient, userMessage } from "./raw-client.js";

/** Turning the gRPC binding on: config `grpc.port`, env GRPC_PORT, flag --grpc-port; off when unset. */

const schemas = new SchemaRegistry();
const started: RunningRouter[] = [];
let child: RouterProcess | undefined;

afterAll(async () => {
  await child?.kill();
  for (const r of started) await r.close();
});

describe("gRPC configuration", () => {
  test("GRPC_PORT and grpc.port; flags win; off by default", () => {
    expect(resolveConfig(schemas, {}).grpc).toEqual({ maxStreamsPerConnection: 100 });
    expect(resolveConfig(schemas, { env: configFromEnv({ GRPC_PORT: "50051" }) }).grpc.port).toBe(50051);
    const both = resolveConfig(schemas, {
      file: { grpc: { port: 1, maxStreamsPerConnection: 8 } },
      env: configFromEnv({ GRPC_PORT: "2" }),
      flags: { grpc: { port: 3 } },
    });
    expect(both.grpc).toEqual({ port: 3, maxStreamsPerConnection: 8 });
    expect(() => resolveConfig(schemas, { file: { grpc: { port: 70000 } } })).toThrow(/grpc/);
    expect(() => configFromEnv({ GRPC_PORT: "x" })).toThrow(/GRPC_PORT/);
  });

  test("a router without a gRPC port has none, and its cards list no GRPC interface", async () => {
    const router = await testRouter({ eliza: false });
    started.push(router);
    expect(router.grpcPort).toBeUndefined();
    const card = (await (await fetch(`${router.url}/agents/echo/.well-known/agent-card.json`)).json()) as { supportedInterfaces: Json[] };
    expect(card.supportedInterfaces.map((i) => i.protocolBinding)).not.toContain("GRPC");
  });

  test("a gRPC port already taken fails start-up with the error", async () => {
    const first = await testRouter({ eliza: false, config: { grpc: { port: 0 } } });
    started.push(first);
    await expect(testRouter({ eliza: false, config: { grpc: { port: first.grpcPort! } } })).rejects.toThrow(/EADDRINUSE/);
  });

  test("closing the router ends its open gRPC streams with their task's final event", async () => {
    const gate = gatedAgent("gated");
    const router = await testRouter({ eliza: false, hostedAgents: [gate.agent], config: { grpc: { port: 0 } } });
    const client = rawClient(`127.0.0.1:${router.grpcPort}`);
    const s = client.stream("SendStreamingMessage", { tenant: "gated", message: userMessage("hold") });
    await until(() => s.received.length >= 2);
    await router.close();
    // The turn in flight ends `failed` (logged), and the stream ends with it, OK: no call is left hanging.
    const all = await s.messages;
    expect((all.at(-1)!.statusUpdate as Json).status).toMatchObject({
      state: "TASK_STATE_FAILED",
      message: { parts: [{ text: "The router shut down while this task was in flight." }] },
    });
    client.close();
    gate.release();
  });

  test("`a2a-router serve --grpc-port 0` serves A2A over gRPC and stops on SIGTERM", async () => {
    child = await spawnRouter(["--grpc-port", "0", "--store", "memory"]);
    const port = Number(/"grpcPort":(\d+)/.exec(child.output())![1]);
    const client = rawClient(`127.0.0.1:${port}`);
    const answer = await client.unary("SendMessage", { tenant: "echo", message: userMessage("over grpc") });
    expect((answer.task as Json).status).toMatchObject({ state: "TASK_STATE_COMPLETED", message: { parts: [{ text: "over grpc" }] } });
    client.close();
    expect(await child.kill()).toBe(0);
    child = undefined;
  });
});
