/** The transport-free engine: task model, agent and store interfaces, the engine itself. */
export { TaskEngine, type EngineOptions, type EngineObserver } from "./engine.js";
export { EventStream } from "./event-stream.js";
export type { AgentConnector, AgentInfo, AgentSkill, AgentTransport, ExecuteContext } from "./agent.js";
export type { AgentDirectory } from "./agent-directory.js";
export type { EngineCluster } from "./cluster.js";
export { LocalPlacement, type PlacedTurn, type PlacementHost, type TurnPlacement, type TurnToPlace } from "./placement.js";
export type { CommitBatch, CommitResult, ListTasksQuery, MemoryRecord, MemoryRecordStore, TaskStore } from "./store.js";
export * from "./model.js";
export { AsyncQueue } from "./async-queue.js";
