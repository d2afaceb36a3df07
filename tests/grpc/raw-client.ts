import { type Client, credentials, makeGenericClientConstructor, Metadata, type ServiceError } from "@grpc/grpc-js";
import { a2aService, decodeJson, encodeJson, readStatusDetails } from "../../router/dialects/v10/grpc/proto.js";

/**
 * A plain @grpc/grpc-js client of lf.a2a.v1.A2AService that speaks v1.0 JSON (encoded with the spec's proto
 * through router/dialects/v10/grpc/proto.ts), for what the SDK's client does not expose: metadata both ways,
 * raw bytes, the status details trailer.
 */
export type Json = Record<string, unknown>;

type Methods = Record<string, (...args: unknown[]) => unknown>;

export interface RawClient {
  /** A unary call's answer as JSON, or its ServiceError. */
  unary(method: string, request: Json | Uint8Array, metadata?: Record<string, string>): Promise<Json>;
  /** A server stream: its response headers, its messages as JSON, and how it ended. */
  /** `paused`: nothing is read until `resume()` (a client that stopped reading). */
  stream(method: string, request: Json, metadata?: Record<string, string>, options?: { paused?: boolean }): RawStream;
  close(): void;
}

export interface RawStream {
  headers: Promise<Metadata>;
  /** Every message, once the stream ended (rejects with the ServiceError of a failed stream). */
  messages: Promise<Json[]>;
  /** Messages as they arrive. */
  received: Json[];
  cancel(): void;
  /** Starts reading a stream opened paused. */
  resume(): void;
}

function metadataOf(entries: Record<string, string> = {}): Metadata {
  const md = new Metadata();
  for (const [k, v] of Object.entries(entries)) md.set(k, v);
  return md;
}

export function rawClient(address: string): RawClient {
  const definition: Record<string, unknown> = {};
  for (const m of a2aService.methods) {
    definition[m.name] = {
      path: `/${a2aService.typeName}/${m.name}`,
      requestStream: false,
      responseStream: m.methodKind === "server_streaming",
      requestSerialize: (r: Json | Uint8Array) => Buffer.from(r instanceof Uint8Array ? r : encodeJson(m.input, r)),
      requestDeserialize: (b: Buffer) => b,
      responseSerialize: (b: Buffer) => b,
      responseDeserialize: (b: Buffer) => decodeJson(m.output, b),
    };
  }
  const Ctor = makeGenericClientConstructor(definition as never, "A2AService");
  const client = new Ctor(address, credentials.createInsecure()) as Client & Methods;
  return {
    unary: (method, request, metadata) =>
      new Promise((resolve, reject) => {
        client[method]!(request, metadataOf(metadata), (err: ServiceError | null, res: Json) => (err ? reject(err) : resolve(res)));
      }),
    stream(method, request, metadata, options = {}) {
      const call = client[method]!(request, metadataOf(metadata)) as NodeJS.EventEmitter & { cancel(): void };
      const received: Json[] = [];
      const headers = new Promise<Metadata>((resolve) => call.once("metadata", resolve));
      const read = () => call.on("data", (m: Json) => received.push(m));
      const messages = new Promise<Json[]>((resolve, reject) => {
        call.on("error", reject);
        call.on("end", () => resolve(received));
      });
      // A test that fails before awaiting it must not also crash on the stream's later cancel.
      messages.catch(() => undefined);
      if (!options.paused) read();
      return { headers, messages, received, cancel: () => call.cancel(), resume: read };
    },
    close: () => client.close(),
  };
}

/** The code, message and ErrorInfo of a failed call, read from its `grpc-status-details-bin` trailer. */
export function statusOf(err: unknown): { code: number; details: string; info?: { reason: string; domain: string; metadata?: Record<string, string> } } {
  const e = err as ServiceError;
  const bin = e.metadata?.get("grpc-status-details-bin")[0];
  const parsed = bin instanceof Buffer ? readStatusDetails(bin) : undefined;
  return { code: e.code, details: e.details, ...(parsed?.info && { info: parsed.info }) };
}

/** A v1.0 user message. */
export function userMessage(text: string, messageId: string = `m-${Math.random().toString(36).slice(2)}`): Json {
  return { messageId, role: "ROLE_USER", parts: [{ text }] };
}

/**
 * Closes the gRPC channel of an @a2a-js/sdk Client made for the GRPC binding (the SDK offers no close): its
 * transport, or the tenant decorator around it, holds a grpc-js client.
 */
export function closeSdkClient(client: { transport: unknown }): void {
  const transport = client.transport as { base?: unknown; grpcClient?: { close(): void } };
  const inner = (transport.base ?? transport) as { grpcClient?: { close(): void } };
  inner.grpcClient?.close();
}
