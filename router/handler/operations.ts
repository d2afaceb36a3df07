import type { Operation } from "../dialects/index.js";

export type { Operation };

/** The operations whose answer is a stream of events rather than one value. */
const STREAMING: ReadonlySet<Operation> = new Set<Operation>(["SendStreamingMessage", "SubscribeToTask"]);

/** Whether `operation` answers with a stream (a JSON-RPC batch may not hold one; REST answers it as SSE). */
export function isStreaming(operation: Operation): boolean {
  return STREAMING.has(operation);
}
