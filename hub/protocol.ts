import { HUB_METHODS } from "./wire/frames.js";

/** The hub's wire vocabulary (CONTRACT section 5) lives in hub/wire, shared with the SDK; the router side's limits live here. */
export {
  HUB_METHODS,
  type ArtifactParams,
  type ExecuteParams,
  type HubProtocol,
  type RegisterParams,
  type StatusParams,
  type WireMessage,
  type WirePart,
} from "./wire/frames.js";

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
