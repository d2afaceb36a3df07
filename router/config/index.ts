/** Configuration: defaults, merging of file < env < flags, validation. */
export { CONFIG_DEFAULTS, DEFAULT_CONFIG_FILE, mergeConfig, isLoopback, type HttpAgentConfig, type RouterConfig, type RouterConfigInput } from "./config.js";
export { ConfigError, readConfigFile, configFromEnv, resolveConfig } from "./load.js";
