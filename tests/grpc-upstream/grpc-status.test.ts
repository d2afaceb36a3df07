import { describe, expect, test } from "@jest/globals";
import { Metadata, status, type ServiceError } from "@grpc/grpc-js";
import { TaskError } from "../../router/core/errors.js";
import { A2A_ERROR_DOMAIN } from "../../router/dialects/index.js";
import { statusDetails } from "../../router/dialects/v10/grpc/proto.js";
import { GRPC_STATUS_REASONS, grpcFailure } from "../../router/upstream/grpc-status.js";
import { grpcTarget } from "../../router/upstream/grpc-transport.js";
import { UpstreamUnreachable } from "../../router/upstream/transport.js";

/**
 * An upstream gRPC agent's failures read back into the router's reasons (router/upstream/grpc-status.ts):
 * the ErrorInfo of the `grpc-status-details-bin` trailer first (v1.0's vocabulary read backwards), the
 * status code otherwise; a channel that never connected is the agent being unreachable.
 */

/** A failed call as grpc-js hands it to its callback, with the trailer an A2A server (the SDK) sends. */
function failed(code: status, details: string, reason?: string, trailer?: Uint8Array): ServiceError {
  const metadata = new Metadata();
  const bin = trailer ?? (reason ? statusDetails(code, details, { reason, domain: A2A_ERROR_DOMAIN }) : undefined);
  if (bin) metadata.set("grpc-status-details-bin", Buffer.from(bin));
  return Object.assign(new Error(`${code} ${status[code]}: ${details}`), { code, details, metadata });
}

const read = (err: ServiceError, method = "SendMessage") => grpcFailure(err, "up", method, 1024);

describe("gRPC failures of an upstream agent", () => {
  test("the ErrorInfo reason names the router's reason; the message names the agent, status, reason and rpc", () => {
    const notFound = read(failed(status.NOT_FOUND, "Task not found: t-1", "TASK_NOT_FOUND"), "GetTask");
    expect(notFound).toBeInstanceOf(TaskError);
    expect(notFound).toMatchObject({
      reason: "task-not-found",
      message: "Upstream agent up answered gRPC NOT_FOUND (TASK_NOT_FOUND) on GetTask: Task not found: t-1",
    });
    expect(read(failed(status.FAILED_PRECONDITION, "done already", "TASK_NOT_CANCELABLE"))).toMatchObject({ reason: "task-not-cancelable" });
    expect(read(failed(status.FAILED_PRECONDITION, "no push", "PUSH_NOTIFICATION_NOT_SUPPORTED"))).toMatchObject({ reason: "push-not-supported" });
    expect(read(failed(status.FAILED_PRECONDITION, "1.1?", "VERSION_NOT_SUPPORTED"))).toMatchObject({ reason: "version-not-supported" });
    // INVALID_PARAMS is two of the router's reasons on the wire; read back it is invalid params.
    expect(read(failed(status.INVALID_ARGUMENT, "bad message", "INVALID_PARAMS"))).toMatchObject({ reason: "invalid-params" });
  });

  test("without an ErrorInfo (or with one the router does not know, or unreadable details) the status code says", () => {
    expect(read(failed(status.UNIMPLEMENTED, "no such rpc"))).toMatchObject({
      reason: "method-not-found",
      message: "Upstream agent up answered gRPC UNIMPLEMENTED on SendMessage: no such rpc",
    });
    expect(read(failed(status.PERMISSION_DENIED, "who are you"))).toMatchObject({ reason: "unauthenticated" });
    expect(read(failed(status.FAILED_PRECONDITION, "x", "EXTENSION_SUPPORT_REQUIRED"))).toMatchObject({ reason: "unsupported-operation" });
    expect(read(failed(status.INTERNAL, "boom", undefined, Uint8Array.of(0xff, 0xff, 0xff)))).toMatchObject({
      reason: "internal",
      message: "Upstream agent up answered gRPC INTERNAL on SendMessage: boom",
    });
    expect(read(failed(status.UNKNOWN, "x".repeat(1000))).message.length).toBeLessThan(300);
  });

  test("a channel that could not connect is the agent being unreachable; an answer past the bound says so", () => {
    const down = read(failed(status.UNAVAILABLE, "No connection established. Last error: Error: connect ECONNREFUSED 127.0.0.1:1"));
    expect(down).toBeInstanceOf(UpstreamUnreachable);
    expect(down.message).toBe("Upstream agent up is unreachable (ECONNREFUSED)");
    // An A2A server's own UNAVAILABLE (with its ErrorInfo) reached the agent: not an outage of the channel.
    expect(read(failed(status.UNAVAILABLE, "busy", "INVALID_AGENT_RESPONSE"))).toMatchObject({ reason: "invalid-agent-response" });
    expect(read(failed(status.RESOURCE_EXHAUSTED, "Received message larger than max (5000 vs. 1024)"))).toMatchObject({
      reason: "invalid-agent-response",
      message: "Upstream agent up sent an answer of more than 1024 bytes on SendMessage",
    });
  });

  test("every status but OK has a reason", () => {
    const codes = Object.values(status).filter((c): c is status => typeof c === "number" && c !== status.OK);
    for (const code of codes) expect(GRPC_STATUS_REASONS[code as Exclude<status, status.OK>]).toBeDefined();
  });
});

describe("where a gRPC interface points", () => {
  test("host:port as cards write it; a URL's host and port; https and grpcs are TLS", () => {
    expect(grpcTarget("agent.example:50051")).toEqual({ target: "agent.example:50051", secure: false });
    expect(grpcTarget("dns:///agent.example:50051")).toEqual({ target: "dns:///agent.example:50051", secure: false });
    expect(grpcTarget("http://127.0.0.1:50051/a2a")).toEqual({ target: "127.0.0.1:50051", secure: false });
    expect(grpcTarget("https://agent.example")).toEqual({ target: "agent.example", secure: true });
    expect(grpcTarget("GRPCS://agent.example:443")).toEqual({ target: "agent.example:443", secure: true });
  });
});
