/**
 * Plugin files (`--eliza-plugin PATH`, config `eliza.plugins`): ES modules whose default export is a Plugin.
 * Loaded with dynamic `import()` and checked before anything is registered; a bad file is refused with one
 * line naming the file and the problem.
 */
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import type { Plugin } from "./types.js";

/** Collapses a multi-line message (syntax errors carry code frames) into one line. */
export function oneLine(text: string): string {
  return text.replace(/\s*\n\s*/g, " ").trim();
}

function isFunction(value: unknown): boolean {
  return typeof value === "function";
}

function checkList(label: string, list: unknown, kind: string, check: (item: Record<string, unknown>, where: string) => void): void {
  if (list === undefined) return;
  if (!Array.isArray(list)) throw new Error(`${label}: "${kind}" must be an array`);
  list.forEach((item, i) => {
    if (!item || typeof item !== "object") throw new Error(`${label}: ${kind}[${i}] must be an object`);
    const name = (item as { name?: unknown }).name;
    if (typeof name !== "string" || name.trim() === "") throw new Error(`${label}: ${kind}[${i}] has no "name"`);
    check(item as Record<string, unknown>, `${kind}[${i}] (${name})`);
  });
}

const ROUTE_TYPES = new Set(["GET", "POST", "PUT", "PATCH", "DELETE", "STATIC"]);

/** `services`: classes with a static `start` and a `serviceType`; `routes`: type, path, handler; `events`: lists of functions. */
function checkExtensions(label: string, plugin: Record<string, unknown>): void {
  if (plugin.services !== undefined) {
    if (!Array.isArray(plugin.services)) throw new Error(`${label}: "services" must be an array`);
    plugin.services.forEach((service: unknown, i) => {
      const s = service as { start?: unknown; serviceType?: unknown } | undefined;
      if (typeof service !== "function" || typeof s?.start !== "function")
        throw new Error(`${label}: services[${i}] must be a Service class (with a static start)`);
      if (typeof s.serviceType !== "string" || s.serviceType === "") throw new Error(`${label}: services[${i}] (${service.name}) has no static serviceType`);
    });
  }
  if (plugin.routes !== undefined) {
    if (!Array.isArray(plugin.routes)) throw new Error(`${label}: "routes" must be an array`);
    plugin.routes.forEach((route: unknown, i) => {
      const r = (route ?? {}) as { type?: unknown; path?: unknown; handler?: unknown };
      if (typeof r.type !== "string" || !ROUTE_TYPES.has(r.type))
        throw new Error(`${label}: routes[${i}] "type" must be one of ${[...ROUTE_TYPES].join(", ")}`);
      if (typeof r.path !== "string") throw new Error(`${label}: routes[${i}] has no "path"`);
      if (r.type !== "STATIC" && !isFunction(r.handler)) throw new Error(`${label}: routes[${i}] (${r.type} ${r.path}) has no "handler" function`);
    });
  }
  if (plugin.events !== undefined) {
    if (!plugin.events || typeof plugin.events !== "object" || Array.isArray(plugin.events))
      throw new Error(`${label}: "events" must be an object of handler lists`);
    for (const [event, handlers] of Object.entries(plugin.events)) {
      if (!Array.isArray(handlers) || !handlers.every(isFunction)) throw new Error(`${label}: events.${event} must be an array of functions`);
    }
  }
}

/**
 * Checks that `value` has a Plugin's shape: `name`; `actions` with `name`, `description`, `handler` and (if
 * given) `validate` functions and a `parameters` array; `providers` with `get`; `evaluators` with
 * `handler` and `validate`; `services`, `routes` and `events` as checkExtensions says; `init` a function.
 * Throws `<label>: <problem>`.
 */
export function checkPlugin(value: unknown, label: string): Plugin {
  if (!value || typeof value !== "object") throw new Error(`${label}: the default export must be a Plugin object`);
  const plugin = value as Record<string, unknown>;
  if (typeof plugin.name !== "string" || plugin.name.trim() === "") throw new Error(`${label}: the plugin has no "name"`);
  if (plugin.init !== undefined && !isFunction(plugin.init)) throw new Error(`${label}: "init" must be a function`);
  checkList(label, plugin.actions, "actions", (a, where) => {
    if (typeof a.description !== "string") throw new Error(`${label}: ${where} has no "description"`);
    if (!isFunction(a.handler)) throw new Error(`${label}: ${where} has no "handler" function`);
    if (a.validate !== undefined && !isFunction(a.validate)) throw new Error(`${label}: ${where} "validate" must be a function`);
    if (a.parameters !== undefined && !Array.isArray(a.parameters)) throw new Error(`${label}: ${where} "parameters" must be an array`);
    if (a.similes !== undefined && !Array.isArray(a.similes)) throw new Error(`${label}: ${where} "similes" must be an array`);
  });
  checkList(label, plugin.providers, "providers", (p, where) => {
    if (!isFunction(p.get)) throw new Error(`${label}: ${where} has no "get" function`);
  });
  checkList(label, plugin.evaluators, "evaluators", (e, where) => {
    if (!isFunction(e.handler)) throw new Error(`${label}: ${where} has no "handler" function`);
    if (!isFunction(e.validate)) throw new Error(`${label}: ${where} has no "validate" function`);
  });
  checkExtensions(label, plugin);
  return withDefaults(plugin as unknown as Plugin);
}

/** elizaOS requires `validate`; plugins that leave it out are treated as always valid. */
function withDefaults(plugin: Plugin): Plugin {
  return {
    ...plugin,
    actions: plugin.actions?.map((a) => ({ ...a, validate: a.validate ?? (async () => true) })),
  };
}

/** Imports and checks a plugin file. Errors read `plugin file PATH: <problem>`. */
export async function loadPluginFile(path: string): Promise<Plugin> {
  const label = `plugin file ${path}`;
  let module: { default?: unknown };
  try {
    module = (await import(pathToFileURL(resolve(path)).href)) as { default?: unknown };
  } catch (err) {
    throw new Error(`${label}: cannot load it: ${oneLine((err as Error).message ?? String(err))}`);
  }
  if (module.default === undefined) throw new Error(`${label}: has no default export (expected a Plugin object)`);
  return checkPlugin(module.default, label);
}
