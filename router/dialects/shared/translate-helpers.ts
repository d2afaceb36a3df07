import { createHash, hash as oneShotHash } from "node:crypto";
import type { DataPart, Message, Metadata } from "../../core/model.js";
import { TaskError } from "../../core/errors.js";
import { smallJson, writeJson } from "../../core/json-pieces.js";

/**
 * Helpers every dialect translator shares. Pure functions, no I/O: the dialect folders (v01/, v03/, v10/)
 * (client and agent sides alike) import these so the same rule is never written twice.
 */

/**
 * The @a2a-js/sdk compat convention: a v1.0 data part may hold any JSON value, v0.1/v0.3 (and the
 * internal model) only objects, so a non-object value travels as `{value}` with this flag set in the
 * part's metadata, and is unwrapped again on the way back to v1.0. Using the SDK's flag means a value
 * round-trips through the router and through the SDK's own compat layer the same way.
 */
export const DATA_PART_COMPAT_FLAG = "data_part_compat";

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** A data part for any JSON value: objects as they are, anything else wrapped (see DATA_PART_COMPAT_FLAG). */
export function dataPartOf(value: unknown, metadata?: Metadata): DataPart {
  if (isRecord(value)) return { kind: "data", data: value, ...(metadata && { metadata }) };
  return { kind: "data", data: { value }, metadata: { ...metadata, [DATA_PART_COMPAT_FLAG]: true } };
}

/** The JSON value a data part carries, unwrapping what dataPartOf wrapped; metadata without the flag. */
export function dataValueOf(part: DataPart): { value: unknown; metadata?: Metadata } {
  if (part.metadata?.[DATA_PART_COMPAT_FLAG] !== true || !("value" in part.data)) {
    return { value: part.data, ...(part.metadata && { metadata: part.metadata }) };
  }
  const { [DATA_PART_COMPAT_FLAG]: _flag, ...rest } = part.metadata;
  return { value: part.data.value, ...(Object.keys(rest).length > 0 && { metadata: rest }) };
}

/**
 * A UUID-shaped id derived from its keys. Used where a dialect requires an id the internal model may
 * lack (v0.3/v1.0 `messageId` on agent status messages): the same message renders with the same id on
 * every stream, in tasks/get and after a restart, which a random id could not promise.
 */
export function stableId(...keys: string[]): string {
  return uuidShaped(createHash("sha1").update(keys.join("\u0000")).digest("hex"));
}

function uuidShaped(h: string): string {
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-5${h.slice(13, 16)}-${((parseInt(h[16]!, 16) & 3) | 8).toString(16)}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

/**
 * The message's own id, or a stable one derived from where it sits and what it says: `stableId(scope, role,
 * JSON.stringify(parts))`, with the parts' JSON hashed piece by piece (a 10 MB text is not copied twice more to
 * name its message).
 */
export function messageIdOf(message: Message, scope: string): string {
  if (message.messageId) return message.messageId;
  // The same bytes hashed at once: a Hash object and the pieces' generator cost ~13 us an id, crypto.hash ~3
  // (a v0.3 answer names the agent's message twice, in its status and its history: measured, the hop).
  const small = smallJson(message.parts);
  if (small !== undefined) return uuidShaped(oneShotHash("sha1", `${scope}\u0000${message.role}\u0000${small}`, "hex"));
  const hash = createHash("sha1").update(`${scope}\u0000${message.role}\u0000`);
  writeJson(message.parts, (piece) => hash.update(piece));
  return uuidShaped(hash.digest("hex"));
}

/**
 * History as A2A's historyLength asks for it: unset = all of it, 0 (or less) = none, N = the last N.
 * Returns undefined when nothing should be rendered, so callers can omit the member.
 */
export function historyWindow(history: Message[], historyLength?: number): Message[] | undefined {
  if (historyLength === undefined) return history.length > 0 ? history : undefined;
  if (historyLength <= 0) return undefined;
  const window = history.slice(-historyLength);
  return window.length > 0 ? window : undefined;
}

/** A string member that ProtoJSON or a careless client may send as "": absent either way. */
export function nonEmpty(value: string | undefined | null): string | undefined {
  return value === undefined || value === null || value === "" ? undefined : value;
}

/** A message's `referenceTaskIds` and `extensions` (v0.3 and v1.0 alike), each when it lists something. */
export function referencesOf(m: { referenceTaskIds?: unknown; extensions?: unknown }): { referenceTaskIds?: string[]; extensions?: string[] } {
  const strings = (v: unknown) => (Array.isArray(v) && v.length > 0 && v.every((x) => typeof x === "string") ? (v as string[]) : undefined);
  const referenceTaskIds = strings(m.referenceTaskIds);
  const extensions = strings(m.extensions);
  return { ...(referenceTaskIds && { referenceTaskIds }), ...(extensions && { extensions }) };
}

/** Metadata worth rendering: undefined for an absent or empty object. */
export function someMetadata(metadata: Metadata | undefined): Metadata | undefined {
  return metadata && Object.keys(metadata).length > 0 ? metadata : undefined;
}

/** InvalidAgentResponse (reason invalid-agent-response): an upstream agent answered with something its dialect does not define. */
export function invalidAgentResult(dialect: string, result: unknown): TaskError {
  const shown = JSON.stringify(result)?.slice(0, 200);
  return TaskError.invalidAgentResponse(`not an A2A ${dialect} result: ${shown}`);
}
