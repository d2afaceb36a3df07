import type { Request, Response } from "express";
import type { Logger } from "pino";
import { TaskError } from "../../core/errors.js";
import { isTerminal, type StreamEvent } from "../../core/model.js";
import { dialectByName } from "../../dialects/index.js";
import type { SchemaRegistry } from "../../schema/validator.js";
import { exceedsDepth, MAX_JSON_DEPTH } from "../../schema/depth.js";
import type { Scope } from "../../service/scope.js";
import type { TaskService } from "../../service/task-service.js";
import { formatEvent, formatJsonEvent, parseLastEventId } from "../../sse/format.js";
import { SseWriter } from "../../sse/writer.js";
import { restError } from "./errors.js";

export interface RestRouteDeps {
  service: TaskService;
  schemas: SchemaRegistry;
  heartbeatMs: number;
  logger: Logger;
  /** v1.0 GetExtendedAgentCard for an agent. */
  extendedCard?: (agentId: string, origin?: string) => unknown;
  origin?: (req: Request) => string | undefined;
}

/** What a matched route hands its handler. */
interface Call {
  req: Request;
  res: Response;
  scope: Scope;
  /** Path parameters in order (task id, config id). */
  args: string[];
  body: Record<string, unknown>;
}

type Handler = (call: Call) => Promise<void>;

const v10 = dialectByName("v1.0");

/**
 * The A2A v1.0 HTTP+JSON binding at `/agents/{agentId}/rest` (CONTRACT 13): the spec's paths over the same
 * task service as JSON-RPC, written with the v1.0 dialect's own shapes. Streams are SSE whose events are
 * StreamResponse objects with `id: <seq>`, resumable with Last-Event-ID as everywhere.
 */
export function restHandler(deps: RestRouteDeps) {
  const { service } = deps;
  const validate = (schemaMethod: string, params: unknown): void => {
    const bad = deps.schemas.check(v10.paramsSchemaId(schemaMethod), params);
    if (bad) throw TaskError.invalidParams(bad.message, bad.field);
  };

  const stream = async (call: Call, opening: unknown, events: AsyncIterable<StreamEvent> | undefined): Promise<void> => {
    const writer = new SseWriter(call.res, deps.heartbeatMs);
    writer.open();
    try {
      if (opening !== undefined) writer.write(formatEvent(JSON.stringify(opening)));
      if (events) {
        for await (const event of events) {
          const json = JSON.stringify(v10.renderEvent(event));
          if (!writer.write(event.seq === undefined ? formatEvent(json) : formatJsonEvent(json, event.seq))) await writer.drained();
          if (writer.closed) break;
        }
      }
    } finally {
      writer.end();
    }
  };

  const routes: Array<[method: string, pattern: RegExp, handler: Handler]> = [
    ["POST", /^\/message:send$/, async ({ res, scope, body }) => {
      validate("SendMessage", body);
      const req = v10.toSendRequest(body);
      const task = v10.returnsImmediately?.(body) ? (await service.start(req, "v1.0", scope)).task : await service.send(req, "v1.0", scope);
      res.json(v10.renderSendResult(task, req.historyLength));
    }],
    ["POST", /^\/message:stream$/, async (call) => {
      validate("SendStreamingMessage", call.body);
      const { task, events } = await service.stream(v10.toSendRequest(call.body), "v1.0", call.scope, signalOf(call.res));
      await stream(call, v10.renderStreamStart!(task), events);
    }],
    ["GET", /^\/tasks$/, async ({ req, res, scope }) => {
      const params = listParams(req.query as Record<string, unknown>);
      validate("ListTasks", params);
      const q = v10.toListQuery!(params);
      const page = await service.list(q, scope);
      res.json(v10.renderList!(page.tasks, page.nextPageToken, page.pageSize, q.historyLength, { includeArtifacts: q.includeArtifacts, totalSize: page.totalSize }));
    }],
    ["GET", /^\/tasks\/([^/:]+)$/, async ({ req, res, scope, args }) => {
      const historyLength = intParam(req.query.historyLength, "historyLength");
      res.json(v10.renderTask(await service.get(args[0]!, scope), historyLength));
    }],
    ["POST", /^\/tasks\/([^/:]+):cancel$/, async ({ res, scope, args }) => void res.json(v10.renderTask(await service.cancel(args[0]!, scope)))],
    ["POST", /^\/tasks\/([^/:]+):subscribe$/, (call) => subscribe(call)],
    ["GET", /^\/tasks\/([^/:]+):subscribe$/, (call) => subscribe(call)],
    ["POST", /^\/tasks\/([^/:]+)\/pushNotificationConfigs$/, async ({ res, scope, args, body }) => {
      const params = { ...body, taskId: args[0] };
      validate("CreateTaskPushNotificationConfig", params);
      const ref = v10.toPushRef(params);
      res.json(v10.renderPushConfig(ref.taskId, await service.setPushConfig(ref.taskId, ref.config!, "v1.0", scope)));
    }],
    ["GET", /^\/tasks\/([^/:]+)\/pushNotificationConfigs$/, async ({ res, scope, args }) => {
      res.json(v10.renderPushConfigList!(args[0]!, await service.listPushConfigs(args[0]!, scope)));
    }],
    ["GET", /^\/tasks\/([^/:]+)\/pushNotificationConfigs\/([^/]+)$/, async ({ res, scope, args }) => {
      res.json(v10.renderPushConfig(args[0]!, await service.getPushConfig(args[0]!, args[1], scope)));
    }],
    ["DELETE", /^\/tasks\/([^/:]+)\/pushNotificationConfigs\/([^/]+)$/, async ({ res, scope, args }) => {
      await service.deletePushConfig(args[0]!, args[1], scope);
      res.json(v10.renderPushDeleted!());
    }],
    ["GET", /^\/extendedAgentCard$/, async ({ req, res, scope }) => {
      if (!deps.extendedCard) throw TaskError.unsupportedOperation("extended agent card");
      res.json(deps.extendedCard(scope.agentId!, deps.origin?.(req)));
    }],
  ];

  async function subscribe(call: Call): Promise<void> {
    const last = parseLastEventId(call.req.get("last-event-id"));
    if (last instanceof Error) throw TaskError.invalidParams(last.message, "Last-Event-ID");
    const signal = signalOf(call.res);
    if (last !== undefined) {
      const { events } = await service.resubscribe(call.args[0]!, call.scope, { afterSeq: last, signal });
      return stream(call, undefined, events);
    }
    const current = await service.get(call.args[0]!, call.scope);
    if (isTerminal(current.status.state)) {
      throw TaskError.unsupportedOperation(`task ${current.id} is already ${current.status.state}`, { taskId: current.id, state: current.status.state });
    }
    const { task, events } = await service.resubscribe(current.id, call.scope, { signal });
    return stream(call, v10.renderStreamStart!(task), events);
  }

  return async (req: Request, res: Response): Promise<void> => {
    const scope: Scope = { agentId: String(req.params.agentId), ...(res.locals.caller && { caller: res.locals.caller }) };
    // A tenant segment (`/{tenant}/message:send`) is accepted and ignored: the router has one tenant.
    const path = req.path.replace(/^\/[^/]+(?=\/(message:|tasks|extendedAgentCard))/, "");
    try {
      for (const [method, pattern, handler] of routes) {
        const m = req.method === method ? pattern.exec(path) : null;
        if (!m) continue;
        const args = m.slice(1).map(decodeSegment);
        await handler({ req, res, scope, args, body: parseBody(req) });
        return;
      }
      res.status(404).json({ error: { code: 404, status: "NOT_FOUND", message: `no ${req.method} ${path} in the A2A HTTP+JSON binding`, details: [] } });
    } catch (err) {
      if (res.headersSent) return void res.end();
      const { http, body } = restError(err);
      if (http === 500) deps.logger.error({ err }, "REST request failed inside the router");
      res.status(http).json(body);
    }
  };
}

/** A path parameter (task or config id) as text; a malformed percent-escape is the client's error. */
function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    throw TaskError.invalidParams("the path has a malformed percent-escape", "path");
  }
}

/** The request's JSON body: none for GET/DELETE, an object otherwise. */
function parseBody(req: Request): Record<string, unknown> {
  const text = typeof req.body === "string" ? req.body : "";
  if (text.trim() === "") return {};
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw TaskError.invalidParams("the body is not valid JSON", "body");
  }
  if (exceedsDepth(value)) throw TaskError.invalidParams(`JSON nests deeper than ${MAX_JSON_DEPTH} levels`, "body");
  if (!value || typeof value !== "object" || Array.isArray(value)) throw TaskError.invalidParams("the body must be a JSON object", "body");
  return value as Record<string, unknown>;
}

/** ListTasks query parameters as the request object's types (proto JSON maps them as strings). */
function listParams(query: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(query)) {
    if (typeof v !== "string") throw TaskError.invalidParams(`query parameter ${k} must be given once`, k);
    if (k === "pageSize" || k === "historyLength") out[k] = intParam(v, k);
    else if (k === "includeArtifacts") {
      if (v !== "true" && v !== "false") throw TaskError.invalidParams(`${k} must be true or false`, k);
      out[k] = v === "true";
    } else out[k] = v;
  }
  return out;
}

function intParam(value: unknown, field: string): number | undefined {
  if (value === undefined) return undefined;
  const n = typeof value === "string" && /^-?\d+$/.test(value) ? Number(value) : Number.NaN;
  if (!Number.isSafeInteger(n)) throw TaskError.invalidParams(`${field} must be an integer`, field);
  return n;
}

/** Aborted when the client goes away: ends its reading of the log, never the task. */
function signalOf(res: Response): AbortSignal {
  const aborter = new AbortController();
  res.on("close", () => aborter.abort());
  return aborter.signal;
}
