/** a2a-router as a library: start a router in-process, or build on its engine and types. */
export { startRouter, type RouterOptions, type RunningRouter } from "./server.js";
export { CONFIG_DEFAULTS, type RouterConfig, type RouterConfigInput } from "./config/config.js";
export { resolveConfig, readConfigFile, configFromEnv, ConfigError } from "./config/load.js";
export { TaskEngine } from "./core/engine.js";
export type { AgentConnector, AgentInfo, AgentSkill, ExecuteContext } from "./core/agent.js";
export type * from "./core/model.js";
export type { MemoryRecord, MemoryRecordStore, TaskStore } from "./core/store.js";
export { TaskError, TASK_ERROR_REASONS, type TaskErrorReason } from "./core/errors.js";
export { RpcError, RPC_ERROR_CODES } from "./rpc/errors.js";
export { openStore, type RouterStore } from "./store/index.js";
