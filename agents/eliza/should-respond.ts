/** When the agent answers without asking the model whether to (as in elizaOS's message handler). */

/** Channel types that always get an answer. */
export const BYPASS_CHANNEL_TYPES: readonly string[] = ["dm", "voice_dm", "self", "api"];
/** Message sources that always get an answer (matched as substrings, case-insensitive). */
export const BYPASS_SOURCES: readonly string[] = ["client_chat", "api", "postman", "a2a"];

/**
 * True when the shouldRespond check is skipped: a direct channel type, or a direct source. Messages that
 * arrive over A2A have source "a2a" unless the request's metadata names another (`metadata.source`).
 */
export function shouldBypassShouldRespond(roomType?: string, source?: string): boolean {
  if (roomType && BYPASS_CHANNEL_TYPES.includes(roomType.toLowerCase())) return true;
  const s = source?.toLowerCase() ?? "";
  return BYPASS_SOURCES.some((pattern) => s.includes(pattern));
}
