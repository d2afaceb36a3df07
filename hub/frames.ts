import type { RawData } from "ws";
import type { RpcId } from "../router/jsonrpc/envelope.js";
import { HubRefusal } from "./wire/errors.js";
import { exceedsDepth, MAX_JSON_DEPTH } from "../router/schema/depth.js";
import type { SchemaRegistry } from "../router/schema/validator.js";
import { HUB_SCHEMAS } from "./protocol.js";

/** One frame from an agent, as far as the hub knows it before looking at its method. */
export interface AgentFrame {
  id?: RpcId;
  method?: unknown;
  params?: unknown;
  result?: unknown;
  error?: unknown;
}

/**
 * Reads one frame, or says why it is not one (a parse error). The message is the hub's own: JSON.parse's
 * text names positions and tokens of a JavaScript parser, which is no business of the agent's.
 */
export function readFrame(data: RawData, isBinary: boolean): AgentFrame | HubRefusal {
  if (isBinary) return HubRefusal.parse("binary frames are not part of the hub protocol");
  let frame: unknown;
  const text = data.toString();
  try {
    frame = JSON.parse(text);
  } catch {
    return HubRefusal.parse("the frame is not valid JSON");
  }
  if (!frame || typeof frame !== "object" || Array.isArray(frame)) return HubRefusal.parse("a frame must be one JSON object");
  if (mayExceedDepth(text) && exceedsDepth(frame)) return HubRefusal.parse(`a frame may not nest deeper than ${MAX_JSON_DEPTH} levels`);
  return frame as AgentFrame;
}

/**
 * Whether a frame's text is long enough to nest past MAX_JSON_DEPTH: each level takes an opening and a closing
 * bracket, a character each, so a shorter one cannot, and the walk of every value it holds is skipped (a relay's
 * short `task.status` frames: the walk was ~2% of the router's main thread there, fifteenth pass).
 */
function mayExceedDepth(text: string): boolean {
  return text.length > 2 * MAX_JSON_DEPTH;
}

/** An agent's answer to a request of ours (task.execute, task.cancel). */
export function isAnswer(frame: AgentFrame): boolean {
  return typeof frame.method !== "string" && ("result" in frame || "error" in frame);
}

/** Checks a method's params against its schema (methods without one take any params). */
export function checkParams(schemas: SchemaRegistry, method: string, params: unknown): void {
  // A Map, not an object lookup: "constructor" or "__proto__" must find nothing, not Object.prototype's.
  const schema = HUB_SCHEMAS.get(method);
  if (!schema) return;
  const issue = schemas.check(schema, params);
  if (issue) throw HubRefusal.invalidParams(issue.message, issue.field);
}
