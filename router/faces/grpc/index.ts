/** The A2A v1.0 gRPC binding (`lf.a2a.v1.A2AService`) for every agent, over the request handler (CONTRACT 17). */
export { startGrpcFace, type GrpcFaceOptions, type RunningGrpcFace } from "./grpc-server.js";
export { FACE_CODES as GRPC_FACE_CODES, REASON_CODES as GRPC_REASON_CODES, grpcStatus, STATUS_DETAILS_TRAILER } from "./errors.js";
