/**
 * SSE event ids of a `tools/call` stream, derived from the task log: every message the call sends comes from
 * one logged event of its task, and its id names the call and that event's seq. An instance that never saw
 * the call (after a restart, or another one of the cluster) re-derives the missed messages from the log.
 */
import type { RequestId } from "@modelcontextprotocol/sdk/types.js";

/** What a call's stream is: enough to render its messages again from the log. */
export interface CallKey {
  /** The JSON-RPC id of the `tools/call` request (the result answers it). */
  requestId: RequestId;
  taskId: string;
  /** The call's events are those after this seq (its first turn started after it). */
  fromSeq: number;
  /** The client's `_meta.progressToken`, when it asked for progress. */
  progressToken?: string | number;
}

const PREFIX = "c1";

/** The id of the message derived from the logged event `seq` (`fromSeq` itself: the stream's priming event). */
export function callEventId(key: CallKey, seq: number): string {
  return `${callEventIdPrefix(key)}${seq}`;
}

/** What every event id of the call starts with (its id is this and the event's seq), made once a call. */
export function callEventIdPrefix(key: CallKey): string {
  const body = Buffer.from(JSON.stringify([key.requestId, key.taskId, key.fromSeq, key.progressToken ?? null]), "utf8").toString("base64url");
  return `${PREFIX}.${body}.`;
}

/** The call and the seq an id names; undefined when it is not a call event id. */
export function parseCallEventId(id: string): { key: CallKey; seq: number } | undefined {
  const [prefix, body, seqText, extra] = id.split(".");
  if (prefix !== PREFIX || !body || !seqText || extra !== undefined || !/^\d{1,15}$/.test(seqText)) return undefined;
  try {
    const raw = JSON.parse(Buffer.from(body, "base64url").toString("utf8")) as unknown;
    if (!Array.isArray(raw) || raw.length !== 4) return undefined;
    const [requestId, taskId, fromSeq, token] = raw as unknown[];
    if (!(typeof requestId === "string" || typeof requestId === "number") || typeof taskId !== "string" || !Number.isSafeInteger(fromSeq)) return undefined;
    if (token !== null && typeof token !== "string" && typeof token !== "number") return undefined;
    const seq = Number(seqText);
    if (seq < (fromSeq as number)) return undefined;
    return { key: { requestId, taskId, fromSeq: fromSeq as number, ...(token !== null && { progressToken: token as string | number }) }, seq };
  } catch {
    return undefined;
  }
}
