/**
 * A2A v1.0 (ProtoJSON of lf.a2a.v1): its wire shapes, client side, client codecs and agent side (JSON-RPC
 * and HTTP+JSON), push body and card shape.
 */
export { v10 } from "./client.js";
export { readProtoNames } from "./proto-names.js";
export { v10GrpcUpstream, v10RestUpstream, v10Upstream } from "./agent.js";
export { v10Codec } from "./codec.js";
export { v10RestCodec } from "./rest-codec.js";
export { v10GrpcCodec } from "./grpc/upstream-codec.js";
export { v10PushBody } from "./push.js";
export { isV10Card, v10CardEndpoints, v10CardMembers } from "./card.js";
export * from "./translate.js";
export type * from "./types.js";
export { A2A_ERROR_DOMAIN, A2A_REASON_NAMES, ERROR_INFO_TYPE, STRUCT_TYPE, errorDetails, type ErrorInfo } from "./error-info.js";
