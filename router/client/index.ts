/**
 * The client side of the A2A wire, below every dialect: the call a codec builds (call.ts), its two bindings'
 * envelopes (binding.ts: JSON-RPC, HTTP+JSON) and the one HTTP/SSE transport (transport.ts) with its bounded
 * reads and deadlines. Each dialect's codec (router/dialects/<dialect>/codec.ts) says what to send and how
 * to read the answer; the router's upstream connector and the CLI both send through this.
 */
export type { ClientCall } from "./call.js";
export { AnswerError, callBody, callContentType, callResult, callUrl, callVerb, type AnswerFault } from "./binding.js";
export {
  errorDetail,
  isEventStream,
  MAX_REASON_CHARS,
  patientDispatcher,
  readEvents,
  readJson,
  request,
  sendCall,
  TransportError,
  type RequestOptions,
  type SseEvent,
  type StreamLimits,
  type TransportFault,
} from "./transport.js";
export { AnswerTooLarge, boundedText } from "./bounded-read.js";
export { deadline, type Deadline } from "./deadline.js";
