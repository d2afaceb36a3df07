import { describe, expect, test } from "@jest/globals";
import type { ServerInterceptingCallInterface, ServerMethodDefinition } from "@grpc/grpc-js";
import { writeWindow } from "../../router/faces/grpc/write-window.js";

/**
 * The gRPC face's write window (router/faces/grpc/write-window.ts): a server stream's message is acknowledged at
 * once while the stream's messages in flight stay under the window, and past it once the oldest are written, so
 * the bytes handed to HTTP/2 and not yet written stay bounded.
 */

/** A call below the interceptor that records each message and completes its writes only when told. */
function fakeCall() {
  const pending: Array<() => void> = [];
  const sent: unknown[] = [];
  const call = {
    start() {},
    sendMetadata() {},
    sendMessage(message: unknown, written: () => void) {
      sent.push(message);
      pending.push(written);
    },
    sendStatus() {},
    startRead() {},
    getPeer: () => "peer",
    getDeadline: () => Number.POSITIVE_INFINITY,
    getHost: () => "host",
    getAuthContext: () => ({}),
    getConnectionInfo: () => ({}),
    getMetricsRecorder: () => ({}),
  } as unknown as ServerInterceptingCallInterface;
  /** Completes the oldest write. */
  const writeOne = () => pending.shift()!();
  return { call, sent, pending, writeOne };
}

const method = (responseStream: boolean) => ({ path: "/s/m", requestStream: false, responseStream }) as ServerMethodDefinition<unknown, unknown>;

/** Sends `message` through the interceptor; the returned flag turns true once the send is acknowledged. */
function send(call: ServerInterceptingCallInterface, message: unknown): { acked: boolean } {
  const state = { acked: false };
  call.sendMessage(message, () => (state.acked = true));
  return state;
}

describe("the gRPC face's write window", () => {
  test("a stream's messages are acknowledged at once within the window, then as the oldest are written", () => {
    const below = fakeCall();
    const call = writeWindow(100)(method(true), below.call);
    const acks = [send(call, Buffer.alloc(40)), send(call, Buffer.alloc(40))];
    expect(acks.map((a) => a.acked)).toEqual([true, true]);
    // 120 bytes in flight: past the window, held until the oldest write completes.
    const third = send(call, Buffer.alloc(40));
    expect(third.acked).toBe(false);
    expect(below.sent).toHaveLength(3);
    below.writeOne();
    expect(third.acked).toBe(true);
  });

  test("a message larger than the window goes alone", () => {
    const below = fakeCall();
    const call = writeWindow(100)(method(true), below.call);
    expect(send(call, Buffer.alloc(500)).acked).toBe(true);
    const next = send(call, Buffer.alloc(10));
    expect(next.acked).toBe(false);
    below.writeOne();
    expect(next.acked).toBe(true);
  });

  test("a message that is not bytes fills the window: one in flight at a time", () => {
    const below = fakeCall();
    const call = writeWindow(100)(method(true), below.call);
    expect(send(call, { an: "object" }).acked).toBe(true);
    const next = send(call, { an: "object" });
    expect(next.acked).toBe(false);
    below.writeOne();
    expect(next.acked).toBe(true);
  });

  test("a call that is not a server stream waits for each write, as grpc-js does", () => {
    const below = fakeCall();
    const call = writeWindow(100)(method(false), below.call);
    const only = send(call, Buffer.alloc(1));
    expect(only.acked).toBe(false);
    below.writeOne();
    expect(only.acked).toBe(true);
  });
});
