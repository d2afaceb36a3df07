import type { ClientCodec } from "../../shared/client-codec.js";
import { v10Codec } from "../codec.js";

/**
 * The client of A2A v1.0 over its gRPC binding (spec 10): for an agent whose card offers only that binding,
 * or a config that asks for it (`protocol: "1.0+grpc"`).
 *
 * gRPC carries the same messages as v1.0 JSON-RPC (spec 5.1): each rpc of `lf.a2a.v1.A2AService` is named
 * as the JSON-RPC method (`SendMessage`, `SendStreamingMessage`, `CancelTask`, ...) and its request is the
 * params object, whose ProtoJSON the gRPC transport (router/upstream/grpc-transport.ts) encodes with the
 * spec's proto (proto.ts); answers decode to the ProtoJSON the JSON-RPC codec reads. So this is the v1.0
 * JSON-RPC codec with another binding: same calls (no envelope is ever built), same readers.
 */
export const v10GrpcCodec: ClientCodec = { ...v10Codec, binding: "GRPC" };
