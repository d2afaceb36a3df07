/** JSON-RPC 2.0 envelopes and codes, shared by the client face and the hub. */
export {
  JSONRPC_CODES,
  success,
  failure,
  successFrame,
  type RpcErrorBody,
  type RpcId,
  type RpcRequest,
  type RpcResponse,
  type RpcSuccess,
  type RpcFailure,
} from "./envelope.js";
