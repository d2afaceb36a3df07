import type { RpcErrorBody } from "./errors.js";

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
