/**
 * The agent SDK (`a2a-router/sdk`): connect your own agent to an a2a-router hub over WebSocket.
 * Async generators stream; plain returns complete once.
 */
export { connectAgent } from "./agent.js";
export { backoffDelay } from "./backoff.js";
export { AgentOptionsError, AgentRefusedError } from "./errors.js";
export type {
  Agent,
  AgentEvents,
  AgentLogger,
  ArtifactInput,
  ConnectAgentOptions,
  DataPart,
  DisconnectedEvent,
  FilePart,
  FinalState,
  LegacyPart,
  Message,
  Metadata,
  Part,
  ReconnectingEvent,
  ReconnectOptions,
  RegisteredEvent,
  SkillDefinition,
  SkillHandler,
  SkillResult,
  SkillReturn,
  TaskContext,
  TaskEvent,
  TextPart,
} from "./types.js";
