/** JSON-RPC: envelopes, the error table, and the framework-free dispatcher. */
export { errorDialect, REASON_CODES, RpcError, RPC_ERROR_CODES, rpcErrorBody, toRpcError, type RpcErrorBody } from "./errors.js";
export { success, failure, successFrame, type RpcId, type RpcRequest, type RpcResponse } from "../jsonrpc/envelope.js";
export { Dispatcher, type CallContext, type DispatcherDeps, type DispatchResult } from "./dispatcher.js";
export { MessageStream, type StreamMessage } from "./stream-render.js";
