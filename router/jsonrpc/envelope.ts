/**
 * JSON-RPC 2.0 itself, neutral: the envelopes and the protocol's own error codes. Both JSON-RPC speakers use it,
 * the client face (router/rpc) and the hub (hub/, agents/sdk); neither A2A's codes nor any face lives here.
 */

/** The codes JSON-RPC 2.0 defines; A2A's own codes live with the JSON-RPC face's table (router/rpc/errors.ts). */
export const JSONRPC_CODES = {
  PARSE_ERROR: -32700,
  INVALID_REQUEST: -32600,
  METHOD_NOT_FOUND: -32601,
  INVALID_PARAMS: -32602,
  INTERNAL_ERROR: -32603,
} as const;

/** The wire `error` member. */
export interface RpcErrorBody {
  code: number;
  message: string;
  data?: unknown;
}

export type RpcId = string | number | null;

export interface RpcRequest {
  jsonrpc: "2.0";
  id?: RpcId;
  method: string;
  params?: unknown;
}

export interface RpcSuccess {
  jsonrpc: "2.0";
  id: RpcId;
  result: unknown;
}

export interface RpcFailure {
  jsonrpc: "2.0";
  id: RpcId;
  error: RpcErrorBody;
}

export type RpcResponse = RpcSuccess | RpcFailure;

export function success(id: RpcId, result: unknown): RpcSuccess {
  return { jsonrpc: "2.0", id, result };
}

export function failure(id: RpcId, error: RpcErrorBody): RpcFailure {
  return { jsonrpc: "2.0", id, error };
}

/**
 * Builds a success frame around an already-serialized result, so an event rendered once can be sent to
 * many streams that differ only in their request id.
 */
export function successFrame(id: RpcId, resultJson: string): string {
  return `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":${resultJson}}`;
}
