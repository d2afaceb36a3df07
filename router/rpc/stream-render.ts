import type { Dialect, OutboundEvent } from "../dialects/index.js";
import { eventMessageOf, type ResultFrame, type StreamMessage } from "../handler/index.js";
import type { RpcId } from "../jsonrpc/envelope.js";
import { successFrame } from "../jsonrpc/envelope.js";

export type { StreamMessage };

/**
 * How the JSON-RPC binding frames a streamed result: a response object with the request's id around the
 * result's JSON, which every stream of the dialect shares (rendered once, router/handler/stream-reply.ts). A
 * large result stays one shared Buffer between the two halves of the envelope.
 */
export function jsonRpcFrame(requestId: RpcId): ResultFrame {
  const head = successFrame(requestId, "").slice(0, -1);
  return (result) => (typeof result === "string" ? successFrame(requestId, result) : [head, result, "}"]);
}

/** The response message of one event, with its seq when it is logged. */
export function eventMessage(dialect: Dialect, requestId: RpcId, event: OutboundEvent): StreamMessage {
  return eventMessageOf(dialect, jsonRpcFrame(requestId), event);
}
