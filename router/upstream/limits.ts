/**
 * Bounds on what an upstream agent's server may send the router in one piece: a JSON body, one SSE event, a
 * card. Without them one answer could hold the router's memory without limit (a body of gigabytes, a stream
 * that never ends its event); the hub bounds a WebSocket agent's frames the same way.
 */
import { HUB_DEFAULTS } from "../core/hub-defaults.js";

/**
 * The most one answer may take: a JSON body in bytes, one SSE event in characters (eventsource-parser's
 * `maxBufferSize`, which counts what it holds of an event not yet ended). The hub's frame limit: an agent's
 * one message is bounded alike whichever way it comes.
 */
export const MAX_ANSWER_BYTES = HUB_DEFAULTS.maxPayload;
/** The most an agent card may take; real cards are a few KB. */
export const MAX_CARD_BYTES = 1024 * 1024;
