import { readFileSync } from "node:fs";
import { join } from "node:path";
import { create, createFileRegistry, type DescMessage, type DescService, fromBinary, fromJson, type JsonValue, toBinary, toJson } from "@bufbuild/protobuf";
import { anyPack, anyUnpack, FileDescriptorSetSchema } from "@bufbuild/protobuf/wkt";
import { schemasDir } from "../../../schema/paths.js";

/**
 * A2A v1.0's protobuf, the spec's normative source, for the gRPC binding (CONTRACT 17). The proto is compiled
 * once (`npm run proto:build`, buf) into a descriptor set committed beside it; @bufbuild/protobuf reads that at
 * run time and converts between the binary wire and ProtoJSON. ProtoJSON is exactly the v1.0 JSON the
 * router's v1.0 dialect already speaks, so gRPC adds no second model: a request is decoded to the JSON a
 * JSON-RPC v1.0 client would have sent, and a result is encoded from the JSON it would have received.
 */

/** The committed descriptor set (a FileDescriptorSet, binary): the A2A proto and every proto it imports. */
export const DESCRIPTOR_SET_PATH = join(schemasDir(), "a2a-v1.0.1.binpb");

/** Every message and service of the A2A proto, google.rpc.Status and its error details. */
export const protoRegistry = createFileRegistry(fromBinary(FileDescriptorSetSchema, readFileSync(DESCRIPTOR_SET_PATH)));

/** The proto's package. */
export const A2A_PACKAGE = "lf.a2a.v1";
/** `lf.a2a.v1.A2AService`: its methods, their kinds and message types. */
export const a2aService: DescService = service(`${A2A_PACKAGE}.A2AService`);

/** A message type of the registry by its full name (`lf.a2a.v1.Task`, `google.rpc.Status`). */
export function messageType(typeName: string): DescMessage {
  const desc = protoRegistry.getMessage(typeName);
  if (!desc) throw new Error(`${typeName} is not in the A2A descriptor set`);
  return desc;
}

function service(typeName: string): DescService {
  const desc = protoRegistry.getService(typeName);
  if (!desc) throw new Error(`${typeName} is not in the A2A descriptor set`);
  return desc;
}

/**
 * Binary -> ProtoJSON (camelCase names, enums as their names, defaults omitted): the shape of v1.0 JSON.
 * Throws on bytes that are not the type (the caller answers INVALID_ARGUMENT).
 */
export function decodeJson(desc: DescMessage, bytes: Uint8Array): JsonValue {
  return toJson(desc, fromBinary(desc, bytes), { registry: protoRegistry });
}

/**
 * ProtoJSON -> binary. Accepts camelCase and proto names; throws (with the field's name) on a value the type
 * does not define, and ignores unknown fields (a newer peer's additions).
 */
export function encodeJson(desc: DescMessage, json: unknown): Uint8Array {
  return toBinary(desc, fromJson(desc, json as JsonValue, { registry: protoRegistry, ignoreUnknownFields: true }));
}

/** The facts of a `google.rpc.ErrorInfo`. */
export interface ErrorInfoFacts {
  reason: string;
  domain: string;
  metadata?: Record<string, string>;
}

/**
 * A `google.rpc.Status` with one ErrorInfo detail, binary: the value of the `grpc-status-details-bin`
 * trailer gRPC's richer error model uses (what @a2a-js/sdk's gRPC client reads).
 */
export function statusDetails(code: number, message: string, info?: ErrorInfoFacts): Uint8Array {
  const statusDesc = messageType("google.rpc.Status");
  const infoDesc = messageType("google.rpc.ErrorInfo");
  const details = info ? [anyPack(infoDesc, create(infoDesc, { reason: info.reason, domain: info.domain, metadata: info.metadata ?? {} }))] : [];
  return toBinary(statusDesc, create(statusDesc, { code, message, details }));
}

/** Reads a `grpc-status-details-bin` trailer: its code, message and the first ErrorInfo, if any. */
export function readStatusDetails(bytes: Uint8Array): { code: number; message: string; info?: ErrorInfoFacts } {
  const statusDesc = messageType("google.rpc.Status");
  const infoDesc = messageType("google.rpc.ErrorInfo");
  const status = fromBinary(statusDesc, bytes) as unknown as { code: number; message: string; details: Parameters<typeof anyUnpack>[0][] };
  for (const any of status.details) {
    const info = anyUnpack(any, infoDesc) as unknown as ErrorInfoFacts | undefined;
    if (info) return { code: status.code, message: status.message, info: { reason: info.reason, domain: info.domain, metadata: { ...info.metadata } } };
  }
  return { code: status.code, message: status.message };
}
