import type { HttpAgentConfig } from "../upstream/http-agent.js";

/** The router's configuration after file, env and flags were merged (CONTRACT section 1). */
export interface RouterConfig {
  host: string;
  port: number;
  /** "memory" | "sqlite:PATH" | "redis://..." */
  store: string;
  agents: HttpAgentConfig[];
  defaultAgent?: string;
  hub: {
    tokens: Record<string, string | string[]>;
    /** Default: true when no tokens are configured and the bind is loopback (dev mode). */
    allowAnonymous?: boolean;
    timeoutMs: number;
  };
  apiKeys: string[];
  taskTimeoutMs: number;
  heartbeatMs: number;
  limits: {
    maxBodyBytes: number;
    /** Bytes one SSE stream may hold (CONTRACT 12): past it a stalled stream is served from the log, by pages this size. */
    streamBufferBytes: number;
  };
  eliza: { character?: string; plugins: string[] };
  /** Serve on a non-loopback address without client API keys. */
  allowOpen: boolean;
}

/** A partial configuration, as a file, the environment or flags give it. */
export type RouterConfigInput = Partial<Omit<RouterConfig, "hub" | "limits" | "eliza">> & {
  hub?: Partial<RouterConfig["hub"]>;
  limits?: Partial<RouterConfig["limits"]>;
  eliza?: Partial<RouterConfig["eliza"]>;
};

/** Every default in one place. */
export const CONFIG_DEFAULTS: RouterConfig = {
  host: "127.0.0.1",
  port: 8080,
  store: "sqlite:./data/router.db",
  agents: [],
  hub: { tokens: {}, timeoutMs: 90_000 },
  apiKeys: [],
  taskTimeoutMs: 600_000,
  heartbeatMs: 15_000,
  limits: { maxBodyBytes: 10_485_760, streamBufferBytes: 1_048_576 },
  eliza: { plugins: [] },
  allowOpen: false,
};

/** The config file read when --config is not given, if it exists. */
export const DEFAULT_CONFIG_FILE = "a2a-router.config.json";

/** Deep-merges config layers left to right (later wins); arrays replace. */
export function mergeConfig(...layers: RouterConfigInput[]): RouterConfig {
  const out = structuredClone(CONFIG_DEFAULTS) as RouterConfig;
  for (const layer of layers) {
    for (const [key, value] of Object.entries(layer)) {
      if (value === undefined) continue;
      const k = key as keyof RouterConfig;
      const current = out[k];
      if (current && typeof current === "object" && !Array.isArray(current) && value && typeof value === "object" && !Array.isArray(value)) {
        Object.assign(current, Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)));
      } else {
        (out as unknown as Record<string, unknown>)[k] = value;
      }
    }
  }
  return out;
}

export function isLoopback(host: string): boolean {
  return host === "localhost" || host === "::1" || host === "[::1]" || /^127\./.test(host);
}
