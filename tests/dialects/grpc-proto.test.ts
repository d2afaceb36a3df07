import { describe, expect, test } from "@jest/globals";
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { a2aService, decodeJson, encodeJson, messageType, readStatusDetails, statusDetails } from "../../router/dialects/v10/grpc/proto.js";

describe("the A2A proto for the gRPC binding", () => {
  test("the committed descriptor set is what buf builds from the proto", () => {
    const out = join(mkdtempSync(join(tmpdir(), "proto-")), "a2a.binpb");
    const pkg = JSON.parse(readFileSync("package.json", "utf8")) as { scripts: Record<string, string> };
    const args = pkg.scripts["proto:build"]!.split(" ").slice(1);
    args[args.length - 1] = out;
    execFileSync(join("node_modules", ".bin", "buf"), args);
    expect(Buffer.compare(readFileSync(out), readFileSync("schemas/a2a-v1.0.1.binpb"))).toBe(0);
  });

  test("every method of lf.a2a.v1.A2AService, streaming ones as server streams", () => {
    const kinds = Object.fromEntries(a2aService.methods.map((m) => [m.name, m.methodKind]));
    expect(Object.keys(kinds)).toHaveLength(11);
    expect(kinds.SendStreamingMessage).toBe("server_streaming");
    expect(kinds.SubscribeToTask).toBe("server_streaming");
    expect(kinds.SendMessage).toBe("unary");
  });

  test("binary and ProtoJSON round-trip v1.0 JSON unchanged, proto names read too", () => {
    const desc = messageType("lf.a2a.v1.SendMessageRequest");
    const json = {
      tenant: "echo",
      message: { messageId: "m1", contextId: "c1", role: "ROLE_USER", parts: [{ text: "hi" }, { data: { a: 1, b: [true, null] } }], metadata: { k: "v" } },
      configuration: { historyLength: 3, returnImmediately: true },
    };
    expect(decodeJson(desc, encodeJson(desc, json))).toEqual(json);
    const snake = { message: { message_id: "m2", role: "ROLE_USER", parts: [{ text: "x" }] } };
    expect(decodeJson(desc, encodeJson(desc, snake))).toEqual({ message: { messageId: "m2", role: "ROLE_USER", parts: [{ text: "x" }] } });
  });

  test("a value the type does not define is refused with the field's name", () => {
    const desc = messageType("lf.a2a.v1.GetTaskRequest");
    expect(() => encodeJson(desc, { id: { not: "a string" } })).toThrow(/id/);
  });

  test("google.rpc.Status with an ErrorInfo detail round-trips", () => {
    const bytes = statusDetails(5, "Task not found: t1", { reason: "TASK_NOT_FOUND", domain: "a2a-protocol.org", metadata: { taskId: "t1" } });
    expect(readStatusDetails(bytes)).toEqual({
      code: 5,
      message: "Task not found: t1",
      info: { reason: "TASK_NOT_FOUND", domain: "a2a-protocol.org", metadata: { taskId: "t1" } },
    });
    expect(readStatusDetails(statusDetails(13, "x"))).toEqual({ code: 13, message: "x" });
  });
});
