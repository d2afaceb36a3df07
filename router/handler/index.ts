/**
 * The A2A request handler between the bindings (JSON-RPC, REST, gRPC next) and the task service: one
 * `(dialect, operation, params, caller) -> value | event stream` for all of them, and the streamed answer a
 * binding frames (rendered once per dialect, batched by the SSE relay).
 */
export { A2ARequestHandler, type HandlerResult, type RequestContext, type RequestHandlerDeps } from "./request-handler.js";
export { isStreaming, type Operation } from "./operations.js";
export {
  eventMessageOf,
  MessageStream,
  renderResult,
  type ResultFrame,
  type StreamMessage,
  type StreamOpening,
  type StreamReply,
} from "./stream-reply.js";
