/**
 * A response id names one turn of one task and nothing else: `resp_` + base64url of
 * `<history index of the turn's message>.<seq after which the turn logs>.<task id>`. Nothing is stored for
 * it, so it resolves after a restart and on every instance on one Redis; what the response was asked with
 * (metadata, background, created_at, previous_response_id) rides on the turn's own user message.
 */

/** The turn a response id names. */
export interface ResponseRef {
  taskId: string;
  /** The turn's events are the task's logged events after this seq, up to the first turn end. */
  fromSeq: number;
  /** Where the turn's user message sits in the task's history. */
  messageIndex: number;
}

const PREFIX = "resp_";

/** The id of a turn. */
export function encodeResponseId(ref: ResponseRef): string {
  return PREFIX + Buffer.from(`${ref.messageIndex}.${ref.fromSeq}.${ref.taskId}`, "utf8").toString("base64url");
}

/** The turn an id names; undefined when it is not an id this router made. */
export function decodeResponseId(id: string): ResponseRef | undefined {
  if (!id.startsWith(PREFIX)) return undefined;
  const body = id.slice(PREFIX.length);
  if (!/^[A-Za-z0-9_-]+$/.test(body)) return undefined;
  const match = /^(\d{1,9})\.(\d{1,15})\.(.+)$/s.exec(Buffer.from(body, "base64url").toString("utf8"));
  if (!match) return undefined;
  return { messageIndex: Number(match[1]), fromSeq: Number(match[2]), taskId: match[3]! };
}
