/** JSON-RPC: envelopes, the error table, and the dispatcher that binds methods onto the A2A request handler. */
export { errorDialect, REASON_CODES, RpcError, RPC_ERROR_CODES, rpcErrorBody, toRpcError, type RpcErrorBody } from "./errors.js";
export { success, failure, successFrame, type RpcId, type RpcRequest, type RpcResponse } from "../jsonrpc/envelope.js";
export { Dispatcher, type CallContext, type DispatcherDeps, type DispatchResult } from "./dispatcher.js";
export { eventMessage, jsonRpcFrame, type StreamMessage } from "./stream-render.js";
