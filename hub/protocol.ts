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

/** Hub limits, in one place. */
export const HUB_DEFAULTS = {
  /** Largest frame accepted from an agent. */
  maxPayload: 16 * 1024 * 1024,
  /** Upper bound on the ws-level ping interval; the actual interval is also at most a third of the timeout. */
  maxPingIntervalMs: 30_000,
  /** Anonymous agents kept listed (offline) after they leave; older ones are forgotten. */
  maxOfflineAnonymous: 256,
  /** How long agents get to answer the close handshake at shutdown. */
  closeGraceMs: 1000,
};

/** Schema refs (schemas/hub.schema.json) for the agent-to-hub methods' params. */
export const HUB_SCHEMAS: Readonly<Record<string, string>> = {
  [HUB_METHODS.REGISTER]: "hub#/$defs/Register",
  [HUB_METHODS.TASK_STATUS]: "hub#/$defs/Status",
  [HUB_METHODS.TASK_ARTIFACT]: "hub#/$defs/Artifact",
  [HUB_METHODS.TASK_COMPLETE]: "hub#/$defs/Complete",
};

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

export interface StatusParams {
  task_id: string;
  status: { state: string; message?: WireMessage };
  final?: boolean;
  metadata?: Record<string, unknown>;
}

export interface ArtifactParams {
  task_id: string;
  artifact: { name?: string; description?: string; parts: WirePart[]; index?: number; append?: boolean; lastChunk?: boolean; metadata?: Record<string, unknown> };
  metadata?: Record<string, unknown>;
}
