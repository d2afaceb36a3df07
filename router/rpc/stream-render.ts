import type { Dialect, OutboundEvent } from "../dialects/index.js";
import type { RpcId } from "./envelope.js";
import { successFrame } from "./envelope.js";
import { formatEvent } from "../sse/format.js";

/**
 * Renders each logged event once per dialect: streams of the same dialect share the JSON of an event's
 * `result` and differ only in the request id wrapped around it. Keyed weakly by the event object, so
 * the cache lives exactly as long as the fan-out holds the event.
 */
const cache = new Map<string, WeakMap<object, string>>();

export function renderResultJson(dialect: Dialect, event: OutboundEvent): string {
  let perDialect = cache.get(dialect.name);
  if (!perDialect) cache.set(dialect.name, (perDialect = new WeakMap()));
  let json = perDialect.get(event);
  if (json === undefined) {
    json = JSON.stringify(dialect.renderEvent(event));
    perDialect.set(event, json);
  }
  return json;
}

/** One SSE frame: `id: <seq>` for logged events, none for synthetic snapshots. */
export function eventFrame(dialect: Dialect, requestId: RpcId, event: OutboundEvent): string {
  return formatEvent(successFrame(requestId, renderResultJson(dialect, event)), event.seq);
}

/** A frame whose result is any value (v1.0's opening Task). */
export function valueFrame(requestId: RpcId, result: unknown): string {
  return formatEvent(successFrame(requestId, JSON.stringify(result)));
}
