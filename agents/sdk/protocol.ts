import { TEXT_KIND_KEY } from "../../router/core/model.js";
import type { ArtifactInput, FinalState, Message, Metadata, Part } from "./types.js";

/** The hub's method names live with the hub (one home for the wire vocabulary). */
export { HUB_METHODS } from "../../hub/protocol.js";

export type JsonRpcId = string | number;

export interface JsonRpcRequest {
  jsonrpc: "2.0";
  id?: JsonRpcId;
  method: string;
  params?: unknown;
}
export interface JsonRpcResponse {
  jsonrpc: "2.0";
  id: JsonRpcId | null;
  result?: unknown;
  error?: { code: number; message: string; data?: unknown };
}
export type JsonRpcFrame = JsonRpcRequest | JsonRpcResponse;

/** Parses one text frame; `undefined` for anything that is not a JSON-RPC object. */
export function parseFrame(data: string): JsonRpcFrame | undefined {
  let value: unknown;
  try {
    value = JSON.parse(data);
  } catch {
    return undefined;
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) return undefined;
  return value as JsonRpcFrame;
}

export function isRequest(frame: JsonRpcFrame): frame is JsonRpcRequest {
  return typeof (frame as JsonRpcRequest).method === "string";
}

/** `task.execute` params as the hub sends them. */
export interface ExecuteParams {
  id: string;
  sessionId?: string;
  message?: Message;
  metadata?: Metadata;
}

export function textMessage(text: string): Message {
  return { role: "agent", parts: [{ type: "text", text }] };
}

export function textOf(message: Message | undefined): string {
  if (!message || !Array.isArray(message.parts)) return "";
  let out = "";
  for (const part of message.parts) if (part && part.type === "text" && typeof part.text === "string") out += part.text;
  return out;
}

function toPart(part: Part | string): Part {
  return typeof part === "string" ? { type: "text", text: part } : part;
}

/**
 * A streamed chunk of the answer (`progress: false`; the hub names it a "delta") or progress text that is
 * not part of it (`ctx.status`): marked `textKind: "progress"` (CONTRACT 9), and `progress: true` for
 * clients that read the older mark (the CLI prints it on stderr when piped).
 */
export function statusParams(taskId: string, text: string, progress = false) {
  return {
    task_id: taskId,
    status: { state: "working", message: textMessage(text) },
    final: false,
    ...(progress && { metadata: { progress: true, [TEXT_KIND_KEY]: "progress" } }),
  };
}

export function artifactParams(taskId: string, artifact: ArtifactInput) {
  const { parts, ...rest } = artifact;
  return { task_id: taskId, artifact: { ...rest, parts: parts.map(toPart) } };
}

export function completeParams(taskId: string, state: FinalState, text: string, metadata?: Metadata) {
  return {
    task_id: taskId,
    status: { state, ...(text !== "" && { message: textMessage(text) }) },
    final: true,
    ...(metadata && Object.keys(metadata).length > 0 && { metadata }),
  };
}
