import { TEXT_KIND_KEY } from "../../router/core/model.js";
import {
  agentTextMessage,
  wireText,
  type ArtifactParams,
  type HubRequest,
  type HubResponse,
  type StatusParams,
  type V10WireMessage,
} from "../../hub/wire/frames.js";
import type { ArtifactInput, FinalState, LegacyPart, Message, Metadata, Part } from "./types.js";

/** The hub's wire (method names, frames) is one module, shared with the hub: hub/wire. */
export { HUB_METHODS } from "../../hub/wire/frames.js";

/** The hub protocol version the SDK speaks (docs/hub-protocol.md): A2A v1.0 messages and parts. */
export const SDK_PROTOCOL = 2;

export type JsonRpcId = string | number;
export type JsonRpcRequest = HubRequest & { id?: JsonRpcId };
export type JsonRpcResponse = HubResponse;
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

/** `task.execute` params as the hub sends them to a protocol 2 agent. */
export interface ExecuteParams {
  id: string;
  contextId?: string;
  /** Protocol 1's name of the context. */
  sessionId?: string;
  message?: Message;
  metadata?: Metadata;
}

/** The text of a message's text parts. */
export function textOf(message: Message | undefined): string {
  return wireText(message);
}

/**
 * A part in A2A v1.0's model. Parts written for the SDK's first version (`{type: "text", text}`,
 * `{type: "file", file: {...}}`, `{type: "data", data}`) and plain strings are taken too.
 */
export function toPart(part: Part | LegacyPart | string): Part {
  if (typeof part === "string") return { text: part };
  const legacy = part as { type?: string; kind?: string; metadata?: Metadata };
  if (legacy.type === undefined && legacy.kind === undefined) return part as Part;
  const meta = legacy.metadata && { metadata: legacy.metadata };
  switch (legacy.type ?? legacy.kind) {
    case "file": {
      const f = (legacy as { file: { name?: string; mimeType?: string; bytes?: string; uri?: string } }).file ?? {};
      return {
        ...(f.bytes !== undefined ? { raw: f.bytes } : { url: f.uri ?? "" }),
        ...(f.name !== undefined && { filename: f.name }),
        ...(f.mimeType !== undefined && { mediaType: f.mimeType }),
        ...meta,
      };
    }
    case "data":
      return { data: (legacy as { data: unknown }).data, ...meta };
    default:
      return { text: (legacy as { text?: string }).text ?? "", ...meta };
  }
}

function textMessage(text: string) {
  return agentTextMessage(text, SDK_PROTOCOL);
}

/**
 * A streamed chunk of the answer (`progress: false`; the hub names it a "delta") or progress text that is
 * not part of it (`ctx.status`): marked `textKind: "progress"` (CONTRACT 9), and `progress: true` for
 * clients that read the older mark (the CLI prints it on stderr when piped).
 */
export function statusParams(taskId: string, text: string, progress = false): StatusParams {
  return {
    task_id: taskId,
    status: { state: "working", message: textMessage(text) },
    final: false,
    ...(progress && { metadata: { progress: true, [TEXT_KIND_KEY]: "progress" } }),
  };
}

export function artifactParams(taskId: string, artifact: ArtifactInput): ArtifactParams {
  const { parts, ...rest } = artifact;
  return { task_id: taskId, artifact: { ...rest, parts: parts.map(toPart) } };
}

export function completeParams(taskId: string, state: FinalState, text: string, metadata?: Metadata): StatusParams {
  return {
    task_id: taskId,
    status: { state, ...(text !== "" && { message: textMessage(text) }) },
    final: true,
    ...(metadata && Object.keys(metadata).length > 0 && { metadata }),
  };
}

export type { V10WireMessage };
