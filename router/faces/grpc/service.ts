import type {
  Metadata,
  MethodDefinition,
  sendUnaryData,
  ServerUnaryCall,
  ServerWritableStream,
  ServiceDefinition,
  UntypedHandleCall,
  UntypedServiceImplementation,
} from "@grpc/grpc-js";
import type { DescMethod } from "@bufbuild/protobuf";
import type { Logger } from "pino";
import { TaskError } from "../../core/errors.js";
import { assertA2AVersion, dialectByName, type Operation } from "../../dialects/index.js";
import { a2aService, decodeJson, encodeJson } from "../../dialects/v10/grpc/proto.js";
import type { A2ARequestHandler, HandlerResult, RequestContext } from "../../handler/index.js";
import { requestDigest } from "../../service/idempotency.js";
import { authenticate, type GrpcAuth, peerAddress, text } from "./auth.js";
import { grpcStatus } from "./errors.js";
import { relayGrpc } from "./stream.js";

export interface GrpcServiceDeps {
  handler: A2ARequestHandler;
  /** Whether an agent id names an agent (a tenant that does not is NOT_FOUND). */
  hasAgent: (id: string) => boolean;
  auth: GrpcAuth;
  logger: Logger;
  /** Told when a stream opens and ends (an open-streams gauge). */
  onStreamOpen?: () => void;
  onStreamEnd?: () => void;
}

const v10 = dialectByName("v1.0");

/** Messages cross grpc-js as bytes: the face decodes and encodes them itself, so a bad request gets its own status. */
const bytes = (b: Uint8Array): Buffer => (Buffer.isBuffer(b) ? b : Buffer.from(b.buffer, b.byteOffset, b.byteLength));

/** `lf.a2a.v1.A2AService` as grpc-js takes a service: every method of the proto, by its path. */
export function a2aServiceDefinition(): ServiceDefinition {
  const definition: Record<string, MethodDefinition<Buffer, Uint8Array>> = {};
  for (const method of a2aService.methods) {
    definition[method.name] = {
      path: `/${a2aService.typeName}/${method.name}`,
      requestStream: false,
      responseStream: method.methodKind === "server_streaming",
      requestSerialize: bytes,
      requestDeserialize: bytes,
      responseSerialize: bytes,
      responseDeserialize: bytes,
      originalName: method.localName,
    };
  }
  return definition as ServiceDefinition;
}

/**
 * The A2A v1.0 gRPC binding (spec 10, CONTRACT 17): each method a thin translation onto the one request
 * handler, as the JSON-RPC and HTTP+JSON bindings are. The request's binary is decoded to ProtoJSON, which is
 * exactly the v1.0 dialect's params; the answer, v1.0 JSON, is encoded to the method's output type. The
 * request's `tenant` names the agent (empty: the router's endpoint, whose default agent answers new messages).
 */
export function a2aServiceImplementation(deps: GrpcServiceDeps): UntypedServiceImplementation {
  const impl: Record<string, UntypedHandleCall> = {};
  for (const method of a2aService.methods) {
    impl[method.name] =
      method.methodKind === "server_streaming"
        ? (call: ServerWritableStream<Buffer, Uint8Array>) => void streamCall(deps, method, call)
        : (call: ServerUnaryCall<Buffer, Uint8Array>, callback: sendUnaryData<Uint8Array>) => void unaryCall(deps, method, call, callback);
  }
  return impl;
}

async function unaryCall(deps: GrpcServiceDeps, method: DescMethod, call: ServerUnaryCall<Buffer, Uint8Array>, callback: sendUnaryData<Uint8Array>) {
  try {
    const result = await run(deps, method, call.request, call.metadata, call.getPeer());
    if (result.kind !== "value") throw TaskError.internal(`${method.name} answered with a stream`);
    callback(null, encodeJson(method.output, result.value ?? {}));
  } catch (err) {
    callback(failure(deps, err));
  }
}

async function streamCall(deps: GrpcServiceDeps, method: DescMethod, call: ServerWritableStream<Buffer, Uint8Array>) {
  const abort = new AbortController();
  call.once("cancelled", () => abort.abort());
  try {
    const result = await run(deps, method, call.request, call.metadata, call.getPeer(), abort.signal);
    if (result.kind !== "stream") throw TaskError.internal(`${method.name} answered with one value`);
    if (call.cancelled) return void result.reply.events?.close();
    relayGrpc(call, result.reply, {
      onError: (err) => deps.logger.error({ err }, "gRPC stream failed"),
      ...(deps.onStreamOpen && { onOpen: deps.onStreamOpen }),
      ...(deps.onStreamEnd && { onEnd: deps.onStreamEnd }),
    });
  } catch (err) {
    call.emit("error", failure(deps, err));
  }
}

/** Authenticates, reads the request and runs the operation the method names. */
async function run(deps: GrpcServiceDeps, method: DescMethod, request: Buffer, metadata: Metadata, peer: string, signal?: AbortSignal): Promise<HandlerResult> {
  const auth = authenticate(deps.auth, metadata, peerAddress(peer));
  if ("refused" in auth) throw new Refused(auth.refused);
  assertA2AVersion(text(metadata, "a2a-version"));
  const { tenant, ...params } = decodeRequest(method, request);
  if (tenant !== undefined && !deps.hasAgent(tenant))
    throw new TaskError("unknown-agent", `unknown tenant "${tenant}": no agent has that id`, { field: "tenant", tenant });
  const lastEventId = text(metadata, "last-event-id");
  // A send's Idempotency-Key (CONTRACT 14) is metadata here; the request is compared as its method and params.
  const idempotencyKey = text(metadata, "idempotency-key");
  const ctx: RequestContext = {
    ...(idempotencyKey !== undefined && { once: { idempotencyKey, requestDigest: requestDigest({ operation: method.name, tenant, params }) } }),
    ...(auth.caller && { caller: auth.caller }),
    ...(tenant !== undefined && { agentId: tenant }),
    ...(lastEventId !== undefined && { lastEventId }),
    ...(signal && { signal }),
  };
  return deps.handler.handle(v10, method.name as Operation, params, ctx);
}

/** The request as v1.0 JSON; its `tenant` (omitted when empty, as ProtoJSON omits defaults) apart. */
function decodeRequest(method: DescMethod, request: Buffer): { tenant?: string } & Record<string, unknown> {
  try {
    return decodeJson(method.input, request) as { tenant?: string } & Record<string, unknown>;
  } catch {
    throw TaskError.invalidParams(`the request is not a valid ${method.input.typeName}`, "request");
  }
}

/** A refusal before any operation ran (authentication), with its status as is. */
class Refused extends Error {
  constructor(readonly status: ReturnType<typeof grpcStatus>) {
    super(status.details);
  }
}

function failure(deps: GrpcServiceDeps, err: unknown): ReturnType<typeof grpcStatus> {
  if (err instanceof Refused) return err.status;
  if (!(err instanceof TaskError)) deps.logger.error({ err }, "gRPC call failed inside the router");
  return grpcStatus(err);
}
