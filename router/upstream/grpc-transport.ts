import { Client, credentials, Metadata, type ClientReadableStream, type ServiceError } from "@grpc/grpc-js";
import type { DescMethod } from "@bufbuild/protobuf";
import type { ClientCall } from "../client/index.js";
import { a2aService, decodeJson, encodeJson } from "../dialects/v10/grpc/proto.js";
import { exceedsDepth, MAX_JSON_DEPTH } from "../schema/depth.js";
import type { Answer, Carriage, ExchangeOptions } from "./carriage.js";
import { grpcFailure, isServiceError } from "./grpc-status.js";

/**
 * Calls to an upstream agent over A2A v1.0's gRPC binding (CONTRACT 17): each call the v1.0 codec builds
 * (method and ProtoJSON params; router/dialects/v10/grpc/upstream-codec.ts) is the rpc of the same name on
 * `lf.a2a.v1.A2AService`, its request encoded from the params with the spec's proto and its answers decoded
 * back to ProtoJSON (router/dialects/v10/grpc/proto.ts), so the v1.0 readers take them as they come over
 * JSON-RPC. Unary rpcs answer one `send` result; server-streaming ones (SendStreamingMessage,
 * SubscribeToTask) one `event` per message. Headers go as metadata (keys lower-cased, as gRPC wants them).
 *
 * One grpc-js channel per target, kept for the agent's life. Bounds as over HTTP: one message at most
 * `maxAnswerBytes` (the channel's receive limit), a stream silent for `idleMs` is given up.
 */
export class GrpcCarriage implements Carriage {
  #clients = new Map<string, Client>();
  #closed = false;

  constructor(
    private readonly agentId: string,
    private readonly limits: { idleMs: number; maxAnswerBytes: number },
  ) {}

  async *exchange(endpoint: string, call: ClientCall, options: ExchangeOptions): AsyncGenerator<Answer> {
    const method = a2aService.methods.find((m) => m.name === call.method);
    if (!method) throw new Error(`A2A's gRPC service has no rpc ${call.method}`);
    const request = this.#encode(method, call.params, options.tenant);
    const metadata = this.#metadata({ ...options.headers, ...call.headers });
    // Once closed (router shutdown), a call still made (the cancels of the turns shutdown ended) gets a
    // channel of its own, shut with it.
    const own = this.#closed;
    const client = own ? this.#newClient(endpoint) : this.#client(endpoint);
    const path = `/${a2aService.typeName}/${method.name}`;
    try {
      if (method.methodKind === "server_streaming") {
        const stream = client.makeServerStreamRequest(path, identity, identity, request, metadata);
        for await (const bytes of this.#messages(stream, method, options.signal)) yield { kind: "event", result: this.#decode(method, bytes) };
        return;
      }
      const bytes = await new Promise<Buffer>((resolve, reject) => {
        const onAbort = () => unary.cancel();
        const unary = client.makeUnaryRequest(path, identity, identity, request, metadata, (err: ServiceError | null, value?: Buffer) => {
          options.signal.removeEventListener("abort", onAbort);
          if (err) reject(this.#failure(err, method, options.signal));
          else resolve(value ?? Buffer.alloc(0));
        });
        if (options.signal.aborted) onAbort();
        else options.signal.addEventListener("abort", onAbort, { once: true });
      });
      yield { kind: "send", result: this.#decode(method, bytes) };
    } finally {
      if (own) client.close();
    }
  }

  /** Whether a channel to `endpoint` connects within CONNECT_TIMEOUT_MS: the agent's liveness when it serves no card. */
  connects(endpoint: string): Promise<boolean> {
    if (this.#closed) return Promise.resolve(false);
    const client = this.#client(endpoint);
    return new Promise((resolve) => client.waitForReady(Date.now() + CONNECT_TIMEOUT_MS, (err) => resolve(!err)));
  }

  close(): void {
    this.#closed = true;
    for (const client of this.#clients.values()) client.close();
    this.#clients.clear();
  }

  /**
   * A stream's messages, as they come. Silence longer than `idleMs` gives the stream up; an early return
   * (the turn ended or was canceled) or an abort cancels the call.
   */
  async *#messages(stream: ClientReadableStream<Buffer>, method: DescMethod, signal: AbortSignal): AsyncGenerator<Buffer> {
    const { idleMs } = this.limits;
    let idle = false;
    let timer: NodeJS.Timeout | undefined;
    const arm = () => {
      clearTimeout(timer);
      timer = setTimeout(() => {
        idle = true;
        stream.cancel();
      }, idleMs);
      timer.unref();
    };
    const onAbort = () => stream.cancel();
    if (signal.aborted) onAbort();
    else signal.addEventListener("abort", onAbort, { once: true });
    const messages = stream[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
    try {
      for (;;) {
        arm();
        let next: IteratorResult<Buffer>;
        try {
          next = await messages.next();
        } catch (err) {
          if (idle) throw new Error(`Upstream agent ${this.agentId} sent nothing for ${idleMs} ms; its stream was given up`);
          throw isServiceError(err) ? this.#failure(err, method, signal) : err;
        }
        // Waiting on the engine is not the agent's silence.
        clearTimeout(timer);
        if (next.done) return;
        yield next.value;
      }
    } finally {
      clearTimeout(timer);
      signal.removeEventListener("abort", onAbort);
      stream.cancel();
    }
  }

  /** The channel to `endpoint` (`host:port`, or a URL whose host and port are taken; https/grpcs: TLS). */
  #client(endpoint: string): Client {
    let client = this.#clients.get(endpoint);
    if (!client) {
      client = this.#newClient(endpoint);
      this.#clients.set(endpoint, client);
    }
    return client;
  }

  #newClient(endpoint: string): Client {
    const { target, secure } = grpcTarget(endpoint);
    return new Client(target, secure ? credentials.createSsl() : credentials.createInsecure(), {
      "grpc.max_receive_message_length": this.limits.maxAnswerBytes,
    });
  }

  /** The request as protobuf; the interface's tenant, when the card names one, in its `tenant` field. */
  #encode(method: DescMethod, params: unknown, tenant: string | undefined): Buffer {
    // Through JSON, as the HTTP bindings send it: members left undefined are dropped, not refused.
    const json = JSON.parse(JSON.stringify(params ?? {})) as Record<string, unknown>;
    try {
      return Buffer.from(encodeJson(method.input, tenant === undefined ? json : { ...json, tenant }));
    } catch {
      throw new Error(`The router could not write its ${method.name} request to upstream agent ${this.agentId} as ${method.input.typeName}`);
    }
  }

  /** One answer as ProtoJSON, the v1.0 JSON its readers take. */
  #decode(method: DescMethod, bytes: Buffer): unknown {
    let json: unknown;
    try {
      json = decodeJson(method.output, bytes);
    } catch {
      throw new Error(`Upstream agent ${this.agentId} sent an answer that is not a ${method.output.typeName} on ${method.name}`);
    }
    if (exceedsDepth(json)) throw new Error(`Upstream agent ${this.agentId} sent JSON nested deeper than ${MAX_JSON_DEPTH} levels on ${method.name}`);
    return json;
  }

  /** Headers as gRPC metadata; a name gRPC cannot carry is said, naming the header. */
  #metadata(headers: Record<string, string>): Metadata {
    const metadata = new Metadata();
    for (const [name, value] of Object.entries(headers)) {
      try {
        metadata.set(name.toLowerCase(), name.toLowerCase().endsWith("-bin") ? Buffer.from(value) : value);
      } catch {
        throw new Error(`Upstream agent ${this.agentId}: header "${name}" cannot be sent as gRPC metadata`);
      }
    }
    return metadata;
  }

  /** A call's failure: the abort itself when the router gave the call up, else the agent's status in the router's terms. */
  #failure(err: ServiceError, method: DescMethod, signal: AbortSignal): unknown {
    if (signal.aborted) return signal.reason ?? err;
    return grpcFailure(err, this.agentId, method.name, this.limits.maxAnswerBytes);
  }
}

const identity = (bytes: Buffer) => bytes;
/** As long as a card lookup may take. */
const CONNECT_TIMEOUT_MS = 5000;

/**
 * Where a gRPC interface URL points: A2A cards write `host:port` (what gRPC clients take); a URL's host and
 * port are taken too (a config `url` naming the agent's HTTP origin). https and grpcs mean TLS.
 */
export function grpcTarget(endpoint: string): { target: string; secure: boolean } {
  const url = /^(https?|grpcs?):\/\/([^/?#]+)/i.exec(endpoint);
  if (!url) return { target: endpoint, secure: false };
  const scheme = url[1]!.toLowerCase();
  return { target: url[2]!, secure: scheme === "https" || scheme === "grpcs" };
}
