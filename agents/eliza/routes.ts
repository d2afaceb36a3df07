/**
 * Plugin routes as the router's HTTP server mounts them: every plugin's `routes` under
 * `/api/plugins/{plugin name}{path}`, each handler called with the runtime as its third argument (elizaOS's
 * `handler(req, res, runtime)`). The server knows nothing of plugins: it gets method, path and handler.
 */
import type { AgentRuntime } from "./runtime.js";
import type { RouteRequest, RouteResponse } from "./types.js";

/** Where plugin routes live on the router's port. */
export const PLUGIN_ROUTES_PREFIX = "/api/plugins";

/** An HTTP route ready to mount: `path` is an express path pattern. */
export interface HostedRoute {
  method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
  path: string;
  handler(req: RouteRequest, res: RouteResponse): Promise<void>;
}

/** A plugin name as a literal in an express (path-to-regexp 8) pattern: its special characters escaped. */
function literal(text: string): string {
  return text.replace(/[{}()[\]+?!:*\\]/g, "\\$&");
}

/** The pattern a plugin's route is mounted at (the route's own path keeps its parameters). */
export function pluginRoutePath(pluginName: string, path: string): string {
  const tail = path.startsWith("/") ? path : `/${path}`;
  return `${PLUGIN_ROUTES_PREFIX}/${literal(pluginName)}${tail === "/" ? "" : tail}`;
}

/**
 * The runtime's plugin routes, ready to mount. A handler that throws answers 500 `{error}` (when it had not
 * answered yet) and is logged; STATIC routes (files served by elizaOS's own server) are skipped with a warning.
 */
export function hostedRoutes(runtime: AgentRuntime): HostedRoute[] {
  const out: HostedRoute[] = [];
  for (const route of runtime.routes) {
    const handler = route.handler;
    if (route.type === "STATIC" || !handler) {
      runtime.logger.warn(
        { plugin: route.pluginName, path: route.path },
        "plugin route not served: STATIC routes and routes without a handler are not supported",
      );
      continue;
    }
    out.push({
      method: route.type,
      path: pluginRoutePath(route.pluginName, route.path),
      handler: async (req, res) => {
        try {
          await handler(req, res, runtime);
        } catch (err) {
          runtime.logger.warn({ err, plugin: route.pluginName, path: route.path }, "plugin route failed");
          if (!res.headersSent) res.status(500).json({ error: err instanceof Error ? err.message : String(err) });
        }
      },
    });
  }
  return out;
}
