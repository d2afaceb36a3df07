/** An upstream A2A agent reached over HTTP (config `agents[]`). */
export interface HttpAgentConfig {
  id: string;
  url: string;
  headers?: Record<string, string>;
  /** "0.1", "0.3", "1.0" (binding from the card), "1.0+rest" (v1.0 over HTTP+JSON), "1.0+grpc" (v1.0 over gRPC), "1.0+jsonrpc". */
  protocol?: string;
}

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
    /** A hub socket that has not registered within this is closed. */
    registerTimeoutMs: number;
    /** An agent that drops and registers again within this keeps its tasks in flight. */
    resumeGraceMs: number;
    /** Browser origins that may open /hub, besides the router's own and `cors.origins`. */
    allowedOrigins: string[];
  };
  /** Client API keys: a bare key, or a key with a principal name and the agents it may use. */
  apiKeys: ApiKeyConfig[];
  taskTimeoutMs: number;
  heartbeatMs: number;
  limits: {
    maxBodyBytes: number;
    /** Bytes one SSE stream may hold (CONTRACT 12): past it a stalled stream is served from the log, by pages this size. */
    streamBufferBytes: number;
    /** An upstream agent's SSE stream silent (no event, no comment) this long fails its task. */
    upstreamIdleMs: number;
    /** A task whose updates the store keeps refusing this long is failed (the other tasks are not held up). */
    commitRetryMs: number;
    /** Open TCP connections; the next one is answered 503 (a small headroom keeps /healthz answering). */
    maxConnections: number;
    /**
     * Open TCP connections from one client address, past which its next ones are answered 503 like those past
     * maxConnections. Absent: half of maxConnections (`defaultConnectionsPerAddress`).
     */
    maxConnectionsPerAddress?: number;
    /** Request body bytes being read at once; a request beyond it gets 503. */
    bodyBytesInFlight: number;
    /** Failed authentications per client address and minute before 429. */
    authFailuresPerMinute: number;
    /** Bytes per second one hub agent connection may send; 0: unlimited. */
    hubBytesPerSecond: number;
    /** Bytes per second one hub agent connection may send while another is sending too; 0: no such limit. */
    hubSharedBytesPerSecond: number;
  };
  /** `public: true` serves /metrics without an API key when keys are configured. */
  metrics: { public: boolean };
  /** Browser origins allowed to call the router (CORS, and the Origin check on POSTs). */
  cors: { origins: string[] };
  /** The A2A v1.0 gRPC binding (CONTRACT 17): off unless `port` is set. */
  grpc: {
    /** 0 picks a free port; absent: no gRPC. */
    port?: number;
    /** Calls at once on one connection (HTTP/2 SETTINGS_MAX_CONCURRENT_STREAMS). */
    maxStreamsPerConnection: number;
  };
  /** `allowPrivateUrls: true` lets webhooks name loopback/private addresses outside dev mode. */
  push: { allowPrivateUrls: boolean };
  /** The base URL every card names (e.g. https://a2a.example.com); default: taken from each request. */
  publicUrl?: string;
  /** Take the scheme and host of cards from X-Forwarded-Proto / X-Forwarded-Host (behind a proxy). */
  trustProxy: boolean;
  /** Prepended to every Redis key (a redis:// store): routers with one prefix on one database share one task space. */
  redisPrefix: string;
  /** Several routers on one Redis store (CONTRACT 11); used only with a redis:// store. */
  cluster: {
    /** How long an instance that stops renewing its lease keeps it (and its turns) before others take over. */
    leaseMs: number;
  };
  /** Retries that never run a turn twice (CONTRACT 14): how long an Idempotency-Key or messageId is remembered. */
  idempotency: { ttlMs: number };
  eliza: { character?: string; plugins: string[] };
  /** Serve on a non-loopback address without client API keys. */
  allowOpen: boolean;
}

/** One entry of `apiKeys`. */
export type ApiKeyConfig = string | { key: string; name?: string; agents?: string[] };

/** A partial configuration, as a file, the environment or flags give it. */
export type RouterConfigInput = Partial<Omit<RouterConfig, "hub" | "limits" | "eliza" | "metrics" | "cors" | "push" | "cluster" | "idempotency" | "grpc">> & {
  grpc?: Partial<RouterConfig["grpc"]>;
  cluster?: Partial<RouterConfig["cluster"]>;
  idempotency?: Partial<RouterConfig["idempotency"]>;
  hub?: Partial<RouterConfig["hub"]>;
  limits?: Partial<RouterConfig["limits"]>;
  eliza?: Partial<RouterConfig["eliza"]>;
  metrics?: Partial<RouterConfig["metrics"]>;
  cors?: Partial<RouterConfig["cors"]>;
  push?: Partial<RouterConfig["push"]>;
};

/** Every default in one place. */
export const CONFIG_DEFAULTS: RouterConfig = {
  host: "127.0.0.1",
  port: 8080,
  store: "sqlite:./data/router.db",
  agents: [],
  hub: { tokens: {}, timeoutMs: 90_000, registerTimeoutMs: 10_000, resumeGraceMs: 2000, allowedOrigins: [] },
  apiKeys: [],
  taskTimeoutMs: 600_000,
  heartbeatMs: 15_000,
  limits: {
    maxBodyBytes: 10_485_760,
    streamBufferBytes: 1_048_576,
    upstreamIdleMs: 300_000,
    commitRetryMs: 30_000,
    maxConnections: 10_000,
    bodyBytesInFlight: 64 * 1024 * 1024,
    authFailuresPerMinute: 30,
    hubBytesPerSecond: 0,
    hubSharedBytesPerSecond: 5 * 1024 * 1024,
  },
  metrics: { public: false },
  cors: { origins: [] },
  grpc: { maxStreamsPerConnection: 100 },
  push: { allowPrivateUrls: false },
  trustProxy: false,
  redisPrefix: "a2a-router:",
  cluster: { leaseMs: 5000 },
  idempotency: { ttlMs: 86_400_000 },
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

/** Loopback names live with the other network facts (router/net); re-exported for config's callers. */
export { isLoopback } from "../net/origin.js";
