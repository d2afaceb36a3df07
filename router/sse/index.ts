/** The SSE wire format (pure) and the response writer. */
export { SSE_HEADERS, PING_FRAME, formatEvent, formatComment, parseLastEventId } from "./format.js";
export { SseWriter } from "./writer.js";
