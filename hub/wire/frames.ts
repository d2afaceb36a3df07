import type { RpcErrorBody, RpcId } from "../../router/jsonrpc/envelope.js";

/**
 * The hub's wire (CONTRACT section 5, docs/hub-protocol.md): method names, the params of every frame, and the
 * builders both sides use (the router's hub and the agent SDK). Plain data only: no ws, no express, no router.
 */

/** The hub's method names. */
export const HUB_METHODS = {
  CONNECTION_ESTABLISHED: "connection.established",
  REGISTER: "agent.register",
  HEARTBEAT: "heartbeat",
  HEARTBEAT_ACK: "heartbeat_ack",
  TASK_EXECUTE: "task.execute",
  TASK_CANCEL: "task.cancel",
  TASK_STATUS: "task.status",
  TASK_ARTIFACT: "task.artifact",
  TASK_COMPLETE: "task.complete",
} as const;

/**
 * Protocol versions an agent may choose with `agent.register {protocol}`. 1 (the default): `task.execute`
 * carries the message in the A2A v0.1 shape. 2: the whole A2A v1.0 message, v1.0 parts both ways, an answer
 * that is a bare message or a rejection, and the registered card's capabilities honoured.
 */
export const HUB_PROTOCOLS = [1, 2] as const;
export type HubProtocol = (typeof HUB_PROTOCOLS)[number];

/** A part in A2A v1.0's model (protocol 2): exactly one of text, raw (base64), url or data. */
export interface V10WirePart {
  text?: string;
  raw?: string;
  url?: string;
  data?: unknown;
  filename?: string;
  mediaType?: string;
  metadata?: Record<string, unknown>;
}

/** A part in the v0.1 (`type`) or v0.3 (`kind`) model (protocol 1; the hub reads both). */
export interface LegacyWirePart {
  type?: string;
  kind?: string;
  text?: string;
  file?: unknown;
  data?: unknown;
  metadata?: Record<string, unknown>;
}

/** Any part an agent may send: the hub tells the models apart by `type`/`kind`, which only the older ones have. */
export type WirePart = LegacyWirePart | V10WirePart;

/** A message an agent sends: role `agent` (v0.1/v0.3) or `ROLE_AGENT` (v1.0). */
export interface WireMessage {
  role?: string;
  parts: WirePart[];
  messageId?: string;
  metadata?: Record<string, unknown>;
}

/** An A2A v1.0 message as protocol 2's `task.execute` carries it. */
export interface V10WireMessage {
  messageId: string;
  role: "ROLE_USER" | "ROLE_AGENT";
  parts: V10WirePart[];
  taskId?: string;
  contextId?: string;
  referenceTaskIds?: string[];
  extensions?: string[];
  metadata?: Record<string, unknown>;
}

/** `agent.register` params. */
export interface RegisterParams {
  agent_name: string;
  auth_token?: string;
  card?: Record<string, unknown>;
  skills?: Array<{ id?: string; name: string; description?: string; tags?: string[]; examples?: string[] }>;
  streaming?: boolean;
  description?: string;
  /** The hub protocol version the agent speaks (default 1). */
  protocol?: HubProtocol;
  /**
   * The tasks the agent still runs (or still has updates of), sent when it registers again after a drop: the
   * hub sends `task.execute` again only for its tasks in flight that are not listed (the agent lost them).
   */
  running?: string[];
}

/**
 * The `task.execute` metadata key that marks a continuation: the next turn of a task that ended its last turn
 * `input-required` (CONTRACT 14). The execute carries the task's existing id; the message is the client's answer.
 */
export const CONTINUATION_KEY = "continuation";

/** `task.execute` params: the message in the v0.1 shape (protocol 1) or A2A v1.0's (protocol 2). */
export interface ExecuteParams<M = unknown> {
  /** The task id. */
  id: string;
  /** The context (conversation) id; protocol 1 names it `sessionId`. */
  sessionId?: string;
  contextId?: string;
  message: M;
  metadata: Record<string, unknown>;
}

/**
 * Protocol 2's answer to `task.execute`: `{accepted: true}` (updates follow), or the whole answer as a bare
 * message (`{message}`: the turn completes with it, no further update is read). A rejection is an error answer.
 */
export interface ExecuteResult {
  accepted?: boolean;
  message?: WireMessage;
}

/**
 * Fields every agent-to-hub task update carries. `seq` (optional) numbers an agent's updates within one
 * turn from 1: an update re-sent after a reconnect carries a seq the hub has seen and is acked, not logged twice.
 */
export interface TaskFrameParams {
  task_id: string;
  seq?: number;
  metadata?: Record<string, unknown>;
}

/** `task.status` and `task.complete` params. */
export interface StatusParams extends TaskFrameParams {
  status: { state: string; message?: WireMessage };
  final?: boolean;
}

/** `task.artifact` params; protocol 2 may name the artifact (`artifactId`) instead of numbering it (`index`). */
export interface ArtifactParams extends TaskFrameParams {
  artifact: {
    artifactId?: string;
    name?: string;
    description?: string;
    parts: WirePart[];
    index?: number;
    append?: boolean;
    lastChunk?: boolean;
    metadata?: Record<string, unknown>;
  };
}

/** `task.cancel` params. */
export interface CancelParams {
  task_id: string;
}

/** One JSON-RPC request (or, without `id`, a notification) of the hub's wire. */
export interface HubRequest<P = unknown> {
  jsonrpc: "2.0";
  id?: RpcId;
  method: string;
  params?: P;
}

/** One answer of the hub's wire. */
export interface HubResponse {
  jsonrpc: "2.0";
  id: RpcId;
  result?: unknown;
  error?: RpcErrorBody;
}

export function hubRequest<P>(id: RpcId, method: string, params: P): HubRequest<P> {
  return { jsonrpc: "2.0", id, method, params };
}

export function hubNotification<P>(method: string, params: P): HubRequest<P> {
  return { jsonrpc: "2.0", method, params };
}

/** Whether a part is in the v0.1/v0.3 model (it names its type) rather than v1.0's. */
export function isLegacyPart(p: WirePart): p is LegacyWirePart {
  return (p as LegacyWirePart).type !== undefined || (p as LegacyWirePart).kind !== undefined || (p as LegacyWirePart).file !== undefined;
}

/** The text of a message's text parts, in whichever part model. */
export function wireText(m: { parts?: readonly WirePart[] } | undefined): string {
  let out = "";
  for (const p of m?.parts ?? []) {
    const kind = isLegacyPart(p) ? (p.kind ?? p.type ?? "text") : "text";
    if (kind === "text" && typeof p.text === "string") out += p.text;
  }
  return out;
}

/** A text-only message of the agent's, in the part model of `protocol`. */
export function agentTextMessage(text: string, protocol: HubProtocol): WireMessage {
  return protocol === 2 ? { role: "ROLE_AGENT", parts: [{ text }] } : { role: "agent", parts: [{ type: "text", text }] };
}
