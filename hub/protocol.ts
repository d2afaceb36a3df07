/** The hub's wire vocabulary (CONTRACT section 5): method names and the frames the hub sends. */
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

/** Paths the hub answers WebSocket upgrades on. */
export const HUB_PATHS: readonly string[] = ["/hub", "/ws/agents"];

/** WebSocket close codes the hub sends. */
export const HUB_CLOSE_CODES = {
  /** The router is shutting down. */
  GOING_AWAY: 1001,
  /** The socket did not register within `hub.registerTimeoutMs`. */
  POLICY_VIOLATION: 1008,
  /** This router lost its cluster lease (and every agent name with it): register again. */
  SERVICE_RESTART: 1012,
} as const;

/** Hub limits: their home is below the hub, where the upstream connector and the cluster directory read them too. */
export { HUB_DEFAULTS } from "../router/core/hub-defaults.js";

/** Schema refs (schemas/hub.schema.json) for the agent-to-hub methods' params. */
export const HUB_SCHEMAS: ReadonlyMap<string, string> = new Map([
  [HUB_METHODS.REGISTER, "hub#/$defs/Register"],
  [HUB_METHODS.TASK_STATUS, "hub#/$defs/Status"],
  [HUB_METHODS.TASK_ARTIFACT, "hub#/$defs/Artifact"],
  [HUB_METHODS.TASK_COMPLETE, "hub#/$defs/Complete"],
]);

export interface RegisterParams {
  agent_name: string;
  auth_token?: string;
  card?: Record<string, unknown>;
  skills?: Array<{ id?: string; name: string; description?: string; tags?: string[]; examples?: string[] }>;
  streaming?: boolean;
  description?: string;
}

type WirePart = { type?: string; kind?: string; text?: string; file?: unknown; data?: unknown; metadata?: Record<string, unknown> };
export type WireMessage = { role?: "user" | "agent"; parts: WirePart[]; metadata?: Record<string, unknown> };

/**
 * Fields every agent-to-hub task update carries. `seq` (optional) numbers an agent's updates within one
 * turn from 1: an update re-sent after a reconnect carries a seq the hub has seen and is acked, not logged twice.
 */
interface TaskFrameParams {
  task_id: string;
  seq?: number;
  metadata?: Record<string, unknown>;
}

export interface StatusParams extends TaskFrameParams {
  status: { state: string; message?: WireMessage };
  final?: boolean;
}

export interface ArtifactParams extends TaskFrameParams {
  artifact: { name?: string; description?: string; parts: WirePart[]; index?: number; append?: boolean; lastChunk?: boolean; metadata?: Record<string, unknown> };
}
