import { type Metadata, ServerInterceptingCall, type ServerInterceptingCallInterface, type ServerInterceptor } from "@grpc/grpc-js";

/** The listener and status types grpc-js's interface takes (not exported by name). */
type Listener = Parameters<ServerInterceptingCallInterface["start"]>[0];
type Status = Parameters<ServerInterceptingCallInterface["sendStatus"]>[0];

/** Bytes of a stream's messages handed to HTTP/2 and not yet written, past which a write waits as grpc-js's would. */
export const WRITE_WINDOW_BYTES = 64 * 1024;

/**
 * A server interceptor (grpc-js's public interceptor API) that lets a server stream's messages reach HTTP/2 without
 * each waiting for the previous one's write. grpc-js's ServerWritableStream takes its next message only once the
 * last one's HTTP/2 write called back: one write round (nghttp2, libuv) a message, ~3.5 us of server CPU each where
 * writing them without waiting costs ~0.5, because node:http2 joins what waits into one writev (docs/benchmarks.md,
 * fifteenth pass, bench/grpc-wire.ts). Here a message's send is acknowledged at once while the stream's messages in
 * flight stay under `windowBytes`; past it, when the oldest ones are written, as grpc-js does. A slow client thus
 * holds at most the window more than before, and the relay's wait on 'drain' (router/faces/grpc/stream.ts) still
 * holds the rest back. Calls that are not server streams pass through untouched; a message that is not bytes
 * (health's Watch, reflection) counts as a whole window, so those stay one message in flight.
 */
export function writeWindow(windowBytes = WRITE_WINDOW_BYTES): ServerInterceptor {
  return (method, call) => new ServerInterceptingCall(method.responseStream ? new WindowedCall(call, windowBytes) : call);
}

class WindowedCall implements ServerInterceptingCallInterface {
  readonly #call: ServerInterceptingCallInterface;
  readonly #window: number;
  #inFlight = 0;
  /** The acknowledgement held back past the window (the stream hands over one message at a time), and its size. */
  #held: (() => void) | undefined;
  #heldSize = 0;

  constructor(call: ServerInterceptingCallInterface, windowBytes: number) {
    this.#call = call;
    this.#window = windowBytes;
  }

  sendMessage(message: unknown, callback: () => void): void {
    // Not bytes: its size is unknown, so it fills the window.
    const size = message instanceof Uint8Array ? message.byteLength : this.#window;
    this.#inFlight += size;
    this.#call.sendMessage(message, () => {
      this.#inFlight -= size;
      const held = this.#held;
      if (held && this.#fits(this.#heldSize)) {
        this.#held = undefined;
        held();
      }
    });
    if (this.#fits(size)) callback();
    else {
      this.#held = callback;
      this.#heldSize = size;
    }
  }

  /** Whether a message of `size`, counted in flight, may be acknowledged: within the window, or alone in flight (a message larger than the window is written alone). */
  #fits(size: number): boolean {
    return this.#inFlight < this.#window || this.#inFlight === size;
  }

  start(listener: Listener): void {
    this.#call.start(listener);
  }
  sendMetadata(metadata: Metadata): void {
    this.#call.sendMetadata(metadata);
  }
  sendStatus(status: Status): void {
    this.#call.sendStatus(status);
  }
  startRead(): void {
    this.#call.startRead();
  }
  getPeer(): string {
    return this.#call.getPeer();
  }
  getDeadline() {
    return this.#call.getDeadline();
  }
  getHost(): string {
    return this.#call.getHost();
  }
  getAuthContext() {
    return this.#call.getAuthContext();
  }
  getConnectionInfo() {
    return this.#call.getConnectionInfo();
  }
  getMetricsRecorder() {
    return this.#call.getMetricsRecorder();
  }
}
