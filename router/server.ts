import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { Socket } from "node:net";
import type { Logger } from "pino";
import { createEchoAgent } from "../agents/echo/index.js";
import { createElizaAgent } from "../agents/eliza/index.js";
import { AgentHub } from "../hub/index.js";
import { AgentRegistry } from "./agents/registry.js";
import { mergeConfig, isLoopback, type RouterConfig, type RouterConfigInput } from "./config/config.js";
import { ConfigError } from "./config/load.js";
import type { AgentConnector } from "./core/agent.js";
import { TaskEngine, type EngineOptions } from "./core/engine.js";
import { extendedCardProvider, type CardAudience, type CardContext } from "./cards/index.js";
import type { LoggedEvent, Task } from "./core/model.js";
import { createApp, type HttpRoute } from "./http/app.js";
import { AuthFailureLimiter } from "./http/auth-limiter.js";
import { clientAddress } from "./net/origin.js";
import { defaultConnectionsPerAddress, isOverLimit, limitConnections, rejectUpgradeOverLimit } from "./http/limits.js";
import { PushNotifier } from "./push/index.js";
import { silentLogger } from "./observability/logger.js";
import { RouterMetrics } from "./observability/metrics.js";
import { TaskService } from "./service/task-service.js";
import { Dispatcher } from "./rpc/dispatcher.js";
import { A2ARequestHandler } from "./handler/index.js";
import { startGrpcFace, type RunningGrpcFace } from "./faces/grpc/index.js";
import { KeyRing } from "./http/auth.js";
import { SchemaRegistry } from "./schema/validator.js";
import { ClusterPlacement, RedisCluster } from "./cluster/index.js";
import { LocalPlacement } from "./core/placement.js";
import { openStore, RedisStore, type RouterStore } from "./store/index.js";
import { HttpAgent, type HttpAgentOptions } from "./upstream/http-agent.js";
import { VERSION } from "./version.js";

/**
 * How long start-up waits for upstream agents' cards before serving anyway (an agent not reached by then is
 * offline until its lookup, retried with backoff, reaches it).
 */
const STARTUP_DISCOVERY_MS = 2000;

/** Options of `startRouter`: a config (or parts of one) plus what cannot be put in a file. */
export interface RouterOptions {
  /** A complete config (from resolveConfig) or parts of one laid over the defaults. */
  config?: RouterConfig | RouterConfigInput;
  host?: string;
  /** 0 picks a free port. */
  port?: number;
  /**
   * A store spec ("memory", "sqlite:PATH", "redis://...") or an open store (the router then closes it) that
   * keeps tasks and the hosted agents' conversations.
   */
  store?: string | RouterStore;
  logger?: Logger;
  /** Extra hosted agents, besides `echo` and `eliza`. */
  hostedAgents?: AgentConnector[];
  /** Set false to run without the hosted `eliza` agent. */
  eliza?: boolean;
  /** Environment for the eliza agent's model (OPENAI_BASE_URL, ...); default process.env. */
  env?: NodeJS.ProcessEnv;
  /** Serves GET /api/conversations/{sessionId}/messages. */
  conversations?: (sessionId: string) => Promise<unknown>;
  /** Extra HTTP routes, e.g. an embedded eliza's plugin routes (`eliza.httpRoutes()`). */
  routes?: readonly HttpRoute[];
  /** Shared schema registry (compiled once); one is made when absent. */
  schemas?: SchemaRegistry;
  /** Engine buffer sizes (tests and benchmarks). */
  tuning?: Pick<EngineOptions, "subscriberCapacity" | "logPageSize" | "maxPendingEvents" | "maxUnstoredBytes" | "streamBufferBytes">;
  /** Upstream agent options beyond the config (tests: a short retry backoff). */
  upstream?: HttpAgentOptions;
}

/** A running router. */
export interface RunningRouter {
  /** http://host:port */
  url: string;
  host: string;
  port: number;
  /** The gRPC binding's port (config `grpc.port`); undefined when it is off. */
  grpcPort?: number;
  config: RouterConfig;
  engine: TaskEngine;
  agents: AgentRegistry;
  hub: AgentHub;
  metrics: RouterMetrics;
  server: Server;
  /** Stops serving: fails turns in flight (logged), closes streams, the hub and the store. */
  close(): Promise<void>;
}

/**
 * Starts the router: store, agents, engine, HTTP + WebSocket on one port. Resolves once listening and
 * once tasks a previous run left in flight have been failed.
 */
export async function startRouter(options: RouterOptions = {}): Promise<RunningRouter> {
  const config = mergeConfig(options.config ?? {}, {
    ...(options.host !== undefined && { host: options.host }),
    ...(options.port !== undefined && { port: options.port }),
    ...(typeof options.store === "string" && { store: options.store }),
  });
  const logger = options.logger ?? silentLogger();
  const schemas = options.schemas ?? new SchemaRegistry();
  // A Redis store is shared: any number of routers serve it as one cluster (router/cluster), fenced per turn.
  const store = typeof options.store === "object" ? options.store : await openStore(config.store, { logger, exclusive: false, prefix: config.redisPrefix });
  let cluster: RedisCluster | undefined;
  if (store instanceof RedisStore) {
    try {
      cluster = await RedisCluster.open({ url: store.url, keys: store.clusterKeys, store, leaseMs: config.cluster.leaseMs, logger });
    } catch (err) {
      await store.close();
      throw err;
    }
    store.setFence(cluster);
  }
  /** Start-up failed: leave the cluster, close the store. */
  const closeStores = async () => {
    await cluster?.close();
    await store.close();
  };

  const agents = new AgentRegistry();
  if (cluster) agents.setRemote(cluster);
  agents.set(createEchoAgent());
  let conversations = options.conversations;
  const routes = [...(options.routes ?? [])];
  /** The built-in eliza, whose plugins' services the router stops when it closes. */
  let eliza: Awaited<ReturnType<typeof createElizaAgent>> | undefined;
  const closeAll = async () => {
    await eliza?.close();
    await closeStores();
  };
  // A caller that brings its own `eliza` (embedding, tests) replaces the built-in one rather than shadowing it.
  const ownEliza = options.hostedAgents?.some((a) => a.info.id === "eliza") ?? false;
  if (options.eliza !== false && !ownEliza) {
    try {
      const built = await createElizaAgent({
        store,
        logger,
        characterPath: config.eliza.character,
        pluginPaths: config.eliza.plugins,
        env: options.env ?? process.env,
      });
      eliza = built;
      agents.set(built);
      conversations ??= (sessionId) => built.readConversation(sessionId);
      routes.push(...built.httpRoutes());
    } catch (err) {
      await closeStores();
      throw err;
    }
  }
  for (const hosted of options.hostedAgents ?? []) agents.set(hosted);
  const taken = config.agents.find((a) => agents.find(a.id));
  if (taken) {
    await closeAll();
    throw new ConfigError(`Invalid config: agents id "${taken.id}" is taken by the hosted agent of that name`);
  }
  const httpAgents = config.agents.map((a) => new HttpAgent(a, logger, { idleMs: config.limits.upstreamIdleMs, schemas, ...options.upstream }));
  for (const a of httpAgents) agents.set(a);
  // Cards are read before serving, but a slow or hanging upstream must not hold the router's start-up:
  // past the bound, lookups finish in the background (a turn waits for its agent's lookup).
  let startupTimer: NodeJS.Timeout | undefined;
  await Promise.race([Promise.all(httpAgents.map((a) => a.discover())), new Promise<void>((r) => (startupTimer = setTimeout(r, STARTUP_DISCOVERY_MS)))]);
  clearTimeout(startupTimer);

  let hub: AgentHub | undefined;
  let engine: TaskEngine | undefined;
  const metrics = new RouterMetrics({
    liveTasks: () => engine?.stats().liveTasks ?? 0,
    streams: () => engine?.stats().streams ?? 0,
    bufferedEvents: () => engine?.stats().bufferedEvents ?? 0,
    pendingCommits: () => engine?.stats().pendingCommits ?? 0,
    logFallbacks: () => engine?.stats().logFallbacks ?? 0,
    hubAgents: () => hub?.onlineCount() ?? 0,
    hubAgentsPaused: () => hub?.pausedCount() ?? 0,
  });
  // Webhooks may reach private addresses in dev mode only (loopback bind, no keys) or when allowed (SSRF).
  const devMode = isLoopback(config.host) && config.apiKeys.length === 0;
  const push = new PushNotifier({ store, logger, urlPolicy: { allowPrivate: devMode || config.push.allowPrivateUrls } });
  const observer = {
    taskStarted: (task: Task) => {
      metrics.taskStarted(task);
      // A new task (nothing logged yet). In a cluster another instance may set its configs: it is looked up.
      if (!cluster && task.lastSeq === 0) push.created(task.id);
    },
    turnEnded: (task: Task, durationMs: number) => metrics.turnEnded(task, durationMs),
    eventsCommitted: (events: LoggedEvent[]) => {
      metrics.eventsCommitted(events);
      push.notify(events);
    },
  };
  engine = new TaskEngine({
    streamBufferBytes: config.limits.streamBufferBytes,
    ...options.tuning,
    store,
    agents,
    logger,
    taskTimeoutMs: config.taskTimeoutMs,
    commitRetryMs: config.limits.commitRetryMs,
    observer,
    // Where turns run: here alone, or on the instance of a cluster their agent is connected to.
    placement: cluster ? new ClusterPlacement(cluster) : new LocalPlacement(),
  });
  await engine.recover();

  const noTokens = Object.keys(config.hub.tokens).length === 0;
  // One count of failed authentications per client address, for every place that checks a credential.
  const authLimiter = new AuthFailureLimiter({ perMinute: config.limits.authFailuresPerMinute });
  hub = new AgentHub({
    registry: agents,
    schemas,
    logger,
    tokens: config.hub.tokens,
    allowAnonymous: config.hub.allowAnonymous ?? (noTokens && isLoopback(config.host)),
    timeoutMs: config.hub.timeoutMs,
    registerTimeoutMs: config.hub.registerTimeoutMs,
    bytesPerSecond: config.limits.hubBytesPerSecond,
    sharedBytesPerSecond: config.limits.hubSharedBytesPerSecond,
    onRest: (limit) => metrics.hubRests.inc({ limit }),
    resumeGraceMs: config.hub.resumeGraceMs,
    allowedOrigins: [...config.cors.origins, ...config.hub.allowedOrigins],
    loopbackBind: isLoopback(config.host),
    originPolicy: { ...(config.publicUrl && { publicUrl: config.publicUrl }), trustProxy: config.trustProxy },
    authLimit: {
      addressOf: (req) => clientAddress(req, config.trustProxy),
      retryAfterSeconds: (address) => authLimiter.retryAfterSeconds(address),
      fail: (address) => authLimiter.fail(address),
    },
    ...(cluster && { cluster }),
  });
  const eng = engine;
  const hubNow = hub;
  cluster?.attach({
    localAgents: { find: (idOrName) => agents.findLocal(idOrName) },
    startTurn: (req, dialect, agent) => eng.startTurn(req, dialect, agent),
    cancel: (taskId) => eng.cancel(taskId),
    adoptOrphan: async (taskId) => void (await eng.adoptOrphan(taskId)),
    lost: (reason) => {
      eng.lost(reason);
      hubNow.disconnectAll(reason);
    },
  });

  const defaultAgent = config.defaultAgent ?? (agents.find("eliza") ? "eliza" : "echo");
  if (!agents.find(defaultAgent)) {
    await closeAll();
    throw new ConfigError(`Invalid config: defaultAgent "${defaultAgent}" is not a hosted agent, an agents entry or a hub.tokens name`);
  }
  let baseUrl = "";
  let grpcPort: number | undefined;
  // Cards name the router as the client reached it (publicUrl, forwarded or Host: http/origin.ts), else the
  // configured publicUrl or the bind address.
  const cardContext = (origin?: string): CardContext => ({
    baseUrl: origin ?? config.publicUrl?.replace(/\/+$/, "") ?? baseUrl,
    version: VERSION,
    pushNotifications: true,
    // Without API keys no caller is authenticated: there is no extended card to advertise or serve.
    extendedCard: config.apiKeys.length > 0,
    apiKeyRequired: config.apiKeys.length > 0,
    ...(grpcPort !== undefined && { grpcPort }),
  });
  const extendedCard =
    config.apiKeys.length > 0
      ? (agentId: string | undefined, origin?: string, audience: CardAudience = "all") =>
          extendedCardProvider(agents, () => cardContext(origin))(agentId, audience)
      : undefined;
  const service = new TaskService({ engine, agents, defaultAgent, push, records: store.records, idempotencyTtlMs: config.idempotency.ttlMs });
  // One A2A request handler behind every binding: JSON-RPC (through the dispatcher) and REST.
  const handler = new A2ARequestHandler({
    service,
    schemas,
    ...(extendedCard && { extendedCard }),
  });
  // The gRPC face checks the same keys as the HTTP guard, with the same ring and failure count.
  const keys = new KeyRing(config.apiKeys);
  const dispatcher = new Dispatcher({ handler, schemas, onInternalError: (err) => logger.error({ err }, "request failed inside the router") });
  const app = createApp({
    dispatcher,
    service,
    handler,
    agents,
    metrics,
    logger,
    apiKeys: config.apiKeys,
    maxBodyBytes: config.limits.maxBodyBytes,
    bodyBytesInFlight: config.limits.bodyBytesInFlight,
    authLimiter,
    corsOrigins: config.cors.origins,
    bindHost: config.host,
    publicUrl: config.publicUrl,
    trustProxy: config.trustProxy,
    metricsPublic: config.metrics.public,
    heartbeatMs: config.heartbeatMs,
    card: cardContext,
    conversations,
    routes,
  });

  const server = createServer(app);
  const perAddress = config.limits.maxConnectionsPerAddress ?? defaultConnectionsPerAddress(config.limits.maxConnections);
  limitConnections(server, config.limits.maxConnections, perAddress);
  const sockets = new Set<Socket>();
  server.on("connection", (s) => {
    sockets.add(s);
    s.on("close", () => sockets.delete(s));
  });
  server.on("upgrade", (req, socket, head) => {
    if (isOverLimit(req.socket)) return rejectUpgradeOverLimit(socket);
    if (!hub!.handleUpgrade(req, socket, head)) socket.destroy();
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(config.port, config.host, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  const urlHost = config.host.includes(":") && !config.host.startsWith("[") ? `[${config.host}]` : config.host;
  baseUrl = `http://${urlHost === "0.0.0.0" ? "127.0.0.1" : urlHost}:${port}`;
  let grpc: RunningGrpcFace | undefined;
  if (config.grpc.port !== undefined) {
    try {
      grpc = await startGrpcFace({
        handler,
        hasAgent: (id) => agents.find(id) !== undefined,
        auth: { keys, limiter: authLimiter },
        logger,
        host: config.host,
        port: config.grpc.port,
        maxMessageBytes: config.limits.maxBodyBytes,
        connections: {
          watch: (tcp) => limitConnections(tcp, config.limits.maxConnections, perAddress),
          refused: isOverLimit,
        },
        maxStreamsPerConnection: config.grpc.maxStreamsPerConnection,
        keepaliveMs: config.heartbeatMs,
      });
      grpcPort = grpc.port;
    } catch (err) {
      server.close();
      for (const a of httpAgents) a.close();
      await engine.close();
      await hub.close();
      await push.close();
      await closeAll();
      throw err;
    }
  }
  logger.info(
    { url: baseUrl, ...(grpcPort !== undefined && { grpcPort }), store: store.kind, agents: agents.list().map((a) => a.info.id) },
    "a2a-router listening",
  );

  let closed: Promise<void> | undefined;
  return {
    url: baseUrl,
    host: config.host,
    port,
    ...(grpcPort !== undefined && { grpcPort }),
    config,
    engine,
    agents,
    hub,
    metrics,
    server,
    close() {
      closed ??= (async () => {
        server.close();
        // Stops taking calls now; its streams end with the engine's below, and what is left is cut after a grace.
        const grpcClosed = grpc?.close();
        for (const a of httpAgents) a.close();
        await engine!.close();
        await hub!.close();
        await push.close();
        await cluster?.close();
        // Streams end once their final event is written; give them that, then cut what is left.
        await new Promise((r) => setImmediate(r));
        for (const s of sockets) s.destroy();
        await grpcClosed;
        await closeAll();
      })();
      return closed;
    },
  };
}
