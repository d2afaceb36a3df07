import express, { type NextFunction, type Request, type Response } from "express";
import type { Logger } from "pino";
import type { AgentRegistry } from "../agents/registry.js";
import type { RouterMetrics } from "../observability/metrics.js";
import type { Dispatcher } from "../rpc/dispatcher.js";
import { failure } from "../rpc/envelope.js";
import { RpcError, toRpcError } from "../rpc/errors.js";
import { agentCard, routerCard, type CardContext } from "../cards/index.js";
import { apiKeyGuard } from "./auth.js";
import { requestOrigin } from "./origin.js";
import { rpcHandler } from "./rpc-route.js";
import type { TaskService } from "../service/task-service.js";
import type { SchemaRegistry } from "../schema/validator.js";
import { restHandler } from "../faces/rest/index.js";
import { mountAiSdkFace, mountChatPage, mountOpenAiFace } from "../faces/index.js";

export interface AppDeps {
  dispatcher: Dispatcher;
  /** The task service every face calls (the chat faces mount on it). */
  service: TaskService;
  agents: AgentRegistry;
  metrics: RouterMetrics;
  logger: Logger;
  apiKeys: readonly string[];
  maxBodyBytes: number;
  heartbeatMs: number;
  /** Resolves the public base URL for cards (the listening address is known only after listen). */
  card: (origin?: string) => CardContext;
  /** Request validation (the REST binding checks its bodies with the v1.0 schemas). */
  schemas: SchemaRegistry;
  /** v1.0 GetExtendedAgentCard for an agent. */
  extendedCard?: (agentId: string, origin?: string) => unknown;
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
  const guard = apiKeyGuard(deps.apiKeys);
  const body = express.text({ type: () => true, limit: deps.maxBodyBytes });
  const rpc = rpcHandler(deps);

  app.get("/healthz", (_req, res) => void res.json({ status: "ok" }));
  // A browser or curl pointed at the root learns where things are instead of a bare 404.
  app.get("/", (req, res) => {
    const { baseUrl, version } = deps.card(requestOrigin(req));
    res.json({
      name: "a2a-router",
      version,
      rpc: `${baseUrl}/rpc`,
      card: `${baseUrl}/.well-known/agent-card.json`,
      agents: `${baseUrl}/agents`,
      hub: `${baseUrl.replace(/^http/, "ws")}/hub`,
    });
  });
  app.get("/metrics", async (_req, res) => {
    res.type(deps.metrics.registry.contentType).send(await deps.metrics.registry.metrics());
  });

  app.get(CARD_PATHS, (req, res) => void res.json(routerCard(deps.agents.list().map((a) => a.info), deps.card(requestOrigin(req)))));
  app.get(
    CARD_PATHS.map((p) => `/agents/:agentId${p}`),
    (req, res) => {
      const agent = deps.agents.find(String(req.params.agentId));
      if (!agent) return void res.status(404).json({ error: `unknown agent "${req.params.agentId}"` });
      res.json(agentCard(agent.info, deps.card(requestOrigin(req))));
    },
  );

  app.get("/agents", guard, (req, res) => {
    const ctx = deps.card(requestOrigin(req));
    res.json({
      agents: deps.agents.list().map((a) => ({
        id: a.info.id,
        name: a.info.name,
        transport: a.info.transport,
        online: a.isOnline(),
        card: agentCard(a.info, ctx),
      })),
    });
  });

  app.get("/api/conversations/:sessionId/messages", guard, async (req, res) => {
    if (!deps.conversations) return void res.json({ messages: [] });
    res.json(await deps.conversations(String(req.params.sessionId)));
  });

  app.post(["/", "/rpc", "/agents/:agentId"], guard, body, rpc);
  app.use(
    "/agents/:agentId/rest",
    guard,
    body,
    restHandler({ service: deps.service, schemas: deps.schemas, heartbeatMs: deps.heartbeatMs, logger: deps.logger, extendedCard: deps.extendedCard, origin: requestOrigin }),
  );

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
  mountAiSdkFace(app, face);
  mountChatPage(app);

  app.use((err: Error & { type?: string; status?: number }, _req: Request, res: Response, _next: NextFunction) => {
    if (err.type === "entity.too.large") {
      return void res
        .status(413)
        .json(failure(null, RpcError.invalidRequest(`request body exceeds limits.maxBodyBytes (${deps.maxBodyBytes} bytes)`).toJSON()));
    }
    deps.logger.error({ err }, "request failed");
    // The cause's text (a stack, "x is not a function") stays in the log: toRpcError says it generically.
    if (!res.headersSent) res.status(err.status ?? 500).json(failure(null, toRpcError(err).toJSON()));
  });
  return app;
}
