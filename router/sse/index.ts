/** The SSE wire format (pure), the response writer, and the one relay every A2A stream is written with. */
export { SSE_HEADERS, PING_FRAME, formatEvent, formatComment, parseLastEventId } from "./format.js";
export { SseWriter } from "./writer.js";
export { relaySse, type SseMessage, type SseRelayOptions, type SseSource } from "./relay.js";
