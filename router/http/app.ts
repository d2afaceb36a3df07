import express, { type Request, type Response } from "express";
import type { Logger } from "pino";
import type { AgentRegistry } from "../agents/registry.js";
import type { RouterMetrics } from "../observability/metrics.js";
import type { Dispatcher } from "../rpc/dispatcher.js";
import type { A2ARequestHandler } from "../handler/index.js";
import { agentCard, cardAudience, CardHeaders, routerCard, type CardAudience, type CardContext } from "../cards/index.js";
import { a2aVersionOf } from "../dialects/index.js";
import type { ApiKeyConfig } from "../config/config.js";
import { AuthFailureLimiter } from "./auth-limiter.js";
import { apiKeyGuard, callerOf } from "./auth.js";
import { originGuard } from "./cors.js";
import { bodyBudget, overLimitGate } from "./limits.js";
import { idleCollection } from "./idle-collection.js";
import { jsonErrors, jsonNotFound } from "./errors.js";
import { indexPage, routerLinks } from "./links.js";
import { requestOrigin, setOriginPolicy } from "./origin.js";
import { rpcHandler } from "./rpc-route.js";
import { sseOptions } from "./sse-options.js";
import type { TaskService } from "../service/task-service.js";
import { restHandler } from "../faces/rest/index.js";
import { mountAiSdkFace, mountChatPage, mountMcpFace, mountOpenAiFace, mountResponsesFace } from "../faces/index.js";

export interface AppDeps {
  dispatcher: Dispatcher;
  /** The task service every face calls (the chat faces mount on it). */
  service: TaskService;
  agents: AgentRegistry;
  metrics: RouterMetrics;
  logger: Logger;
  apiKeys: readonly ApiKeyConfig[];
  maxBodyBytes: number;
  /** limits.bodyBytesInFlight (default: unbounded). */
  bodyBytesInFlight?: number;
  /** limits.authFailuresPerMinute (default: unlimited); ignored when `authLimiter` is given. */
  authFailuresPerMinute?: number;
  /** The failure count shared with other places that check credentials (the hub's upgrade). */
  authLimiter?: AuthFailureLimiter;
  /** cors.origins */
  corsOrigins?: readonly string[];
  /** The bind address (the Origin check's DNS-rebinding rule); default loopback. */
  bindHost?: string;
  publicUrl?: string;
  trustProxy?: boolean;
  /** metrics.public: serve /metrics without a key. */
  metricsPublic?: boolean;
  heartbeatMs: number;
  /** Resolves the public base URL for cards (the listening address is known only after listen). */
  card: (origin?: string) => CardContext;
  /** The A2A request handler the REST binding calls (the JSON-RPC one reaches it through the dispatcher). */
  handler: A2ARequestHandler;
  /** GET /api/conversations/{sessionId}/messages, when a hosted agent keeps conversations. */
  conversations?: (sessionId: string) => Promise<unknown>;
  /** Extra routes a hosted agent serves (the Eliza plugins' `/api/plugins/...`), behind the API keys. */
  routes?: readonly HttpRoute[];
}

/** A route a hosted agent hands the server: an express path pattern and a handler that answers. */
export interface HttpRoute {
  method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
  path: string;
  handler(req: Request, res: Response): Promise<void>;
}

const CARD_PATHS = ["/.well-known/agent.json", "/.well-known/agent-card.json"];

/** The HTTP surface of CONTRACT section 2, as a thin express layer over the dispatcher. */
export function createApp(deps: AppDeps): express.Express {
  const app = express();
  app.disable("x-powered-by");
  setOriginPolicy(app, { publicUrl: deps.publicUrl, trustProxy: deps.trustProxy ?? false });
  const limiter = deps.authLimiter ?? (deps.authFailuresPerMinute ? new AuthFailureLimiter({ perMinute: deps.authFailuresPerMinute }) : undefined);
  const guard = apiKeyGuard(deps.apiKeys, { limiter, trustProxy: deps.trustProxy });
  const body = express.text({ type: () => true, limit: deps.maxBodyBytes });
  const rpc = rpcHandler(deps);

  // Ahead of every route: connection limit, then the Origin check and CORS (before auth and before any body
  // is read), then the bound on body bytes being read at once.
  app.use(overLimitGate());
  app.use(originGuard({ origins: deps.corsOrigins ?? [], bindHost: deps.bindHost ?? "127.0.0.1" }));
  if (deps.bodyBytesInFlight !== undefined) app.use(bodyBudget(deps.bodyBytesInFlight, deps.maxBodyBytes));
  // Large bodies' text, dead once answered, is returned to the system once the router is quiet again.
  app.use(idleCollection());

  app.get("/healthz", (_req, res) => void res.json({ status: "ok" }));
  // A browser or curl pointed at the root learns where things are instead of a bare 404: JSON for clients,
  // a page of links for a browser that asks for HTML.
  app.get("/", (req, res) => {
    const { baseUrl, version } = deps.card(requestOrigin(req));
    const links = routerLinks(baseUrl);
    const index = {
      name: "a2a-router",
      version,
      chat: links.chat,
      openai: links.openai,
      mcp: links.mcp,
      rpc: links.rpc,
      card: `${baseUrl}/.well-known/agent-card.json`,
      agents: links.agents,
      hub: links.hub,
      health: links.health,
    };
    res.vary("Accept");
    if (req.accepts(["json", "html"]) === "html") return void res.type("html").send(indexPage(index));
    res.json(index);
  });
  const metricsGuard = deps.metricsPublic ? [] : [guard];
  app.get("/metrics", ...metricsGuard, async (_req, res) => {
    res.type(deps.metrics.registry.contentType).send(await deps.metrics.registry.metrics());
  });

  // The version a client asks for (A2A-Version) picks the card's shape; each card carries its caching headers.
  const cardHeaders = new CardHeaders();
  const sendCard = (req: Request, res: Response, card: (audience: CardAudience) => Record<string, unknown>): void => {
    const body = JSON.stringify(card(cardAudience(a2aVersionOf(req.get("a2a-version"), req.query))));
    res.set(cardHeaders.of(body)).vary("A2A-Version").type("json").send(body);
  };
  app.get(CARD_PATHS, (req, res) =>
    sendCard(req, res, (audience) =>
      routerCard(
        deps.agents.list().map((a) => a.info),
        deps.card(requestOrigin(req)),
        audience,
      ),
    ),
  );
  app.get(
    CARD_PATHS.map((p) => `/agents/:agentId${p}`),
    (req, res) => {
      const agent = deps.agents.find(String(req.params.agentId));
      if (!agent) return void res.status(404).json({ error: `unknown agent "${req.params.agentId}"` });
      sendCard(req, res, (audience) => agentCard(agent.info, deps.card(requestOrigin(req)), audience));
    },
  );

  app.get("/agents", guard, (req, res) => {
    const ctx = deps.card(requestOrigin(req));
    res.json({
      // A key limited to some agents sees those only.
      agents: deps.service.listAgents(callerOf(res)).map((a) => ({
        id: a.info.id,
        name: a.info.name,
        transport: a.info.transport,
        online: a.isOnline(),
        card: agentCard(a.info, ctx),
      })),
      // Where a request that names no agent goes (pickers pre-select it).
      ...(deps.service.defaultAgentId(callerOf(res)) !== undefined && { defaultAgent: deps.service.defaultAgentId(callerOf(res)) }),
    });
  });

  app.get("/api/conversations/:sessionId/messages", guard, async (req, res) => {
    if (!deps.conversations) return void res.json({ messages: [] });
    res.json(await deps.conversations(String(req.params.sessionId)));
  });

  app.post(["/", "/rpc", "/agents/:agentId"], guard, body, rpc);
  app.use("/agents/:agentId/rest", guard, body, restHandler({ handler: deps.handler, relay: sseOptions(deps), logger: deps.logger, origin: requestOrigin }));

  if (deps.routes?.length) {
    const json = express.json({ limit: deps.maxBodyBytes });
    for (const route of deps.routes) {
      const method = route.method.toLowerCase() as "get" | "post" | "put" | "patch" | "delete";
      app[method](route.path, guard, json, (req, res) => route.handler(req, res));
    }
  }

  // The chat faces (CONTRACT 10): same agents, tasks and keys, other wires.
  const face = { service: deps.service, guard, maxBodyBytes: deps.maxBodyBytes, heartbeatMs: deps.heartbeatMs, logger: deps.logger };
  mountOpenAiFace(app, face);
  mountResponsesFace(app, face);
  mountAiSdkFace(app, face);
  mountChatPage(app);
  // The MCP face (CONTRACT 16): every agent as a tool; session ids are sealed with the configured keys.
  mountMcpFace(app, {
    ...face,
    originCheck: originGuard({ origins: deps.corsOrigins ?? [], bindHost: deps.bindHost ?? "127.0.0.1", allMethods: true }),
    sessionSecret: JSON.stringify(deps.apiKeys),
  });

  app.use(jsonNotFound());
  app.use(jsonErrors(deps.logger, deps.maxBodyBytes));
  return app;
}
