import type { Request, Response } from "express";
import type { Logger } from "pino";
import { TaskError } from "../../core/errors.js";
import { a2aVersionOf, assertA2AVersion, dialectByName, readProtoNames } from "../../dialects/index.js";
import { MessageStream, type A2ARequestHandler, type Operation, type ResultFrame } from "../../handler/index.js";
import { exceedsDepth, MAX_JSON_DEPTH } from "../../schema/depth.js";
import { requestDigest } from "../../service/idempotency.js";
import { relaySse, type SseRelayOptions } from "../../sse/relay.js";
import { FACE_ERRORS, faceError, restError } from "./errors.js";

export interface RestRouteDeps {
  handler: A2ARequestHandler;
  /** How streams are written (heartbeat, gauge, failures): the same relay as every A2A stream. */
  relay: SseRelayOptions;
  logger: Logger;
  origin?: (req: Request) => string | undefined;
}

/** A route: the A2A operation it is, and how its params read from the request (path arguments, query, body). */
type Route = [method: string, pattern: RegExp, operation: Operation, params: (call: Call) => unknown];

/** What a matched route reads its params from. */
interface Call {
  req: Request;
  /** Path parameters in order (task id, config id). */
  args: string[];
  body: Record<string, unknown>;
}

const v10 = dialectByName("v1.0");

/** The spec's paths (v1.0 11.3), each a thin translation onto the request handler's operation and v1.0 params. */
const ROUTES: Route[] = [
  ["POST", /^\/message:send$/, "SendMessage", ({ body }) => body],
  ["POST", /^\/message:stream$/, "SendStreamingMessage", ({ body }) => body],
  ["GET", /^\/tasks$/, "ListTasks", ({ req }) => listParams(readProtoNames(req.query) as Record<string, unknown>)],
  [
    "GET",
    /^\/tasks\/([^/:]+)$/,
    "GetTask",
    ({ req, args }) => withInt({ id: args[0] }, (readProtoNames(req.query) as Record<string, unknown>).historyLength, "historyLength"),
  ],
  ["POST", /^\/tasks\/([^/:]+):cancel$/, "CancelTask", ({ args }) => ({ id: args[0] })],
  ["POST", /^\/tasks\/([^/:]+):subscribe$/, "SubscribeToTask", ({ args }) => ({ id: args[0] })],
  ["GET", /^\/tasks\/([^/:]+):subscribe$/, "SubscribeToTask", ({ args }) => ({ id: args[0] })],
  ["POST", /^\/tasks\/([^/:]+)\/pushNotificationConfigs$/, "CreateTaskPushNotificationConfig", ({ args, body }) => ({ ...body, taskId: args[0] })],
  ["GET", /^\/tasks\/([^/:]+)\/pushNotificationConfigs$/, "ListTaskPushNotificationConfigs", ({ args }) => ({ taskId: args[0] })],
  ["GET", /^\/tasks\/([^/:]+)\/pushNotificationConfigs\/([^/]+)$/, "GetTaskPushNotificationConfig", ({ args }) => ({ taskId: args[0], id: args[1] })],
  ["DELETE", /^\/tasks\/([^/:]+)\/pushNotificationConfigs\/([^/]+)$/, "DeleteTaskPushNotificationConfig", ({ args }) => ({ taskId: args[0], id: args[1] })],
  ["GET", /^\/extendedAgentCard$/, "GetExtendedAgentCard", () => ({})],
];

/** REST writes a streamed result bare: each SSE event is one StreamResponse. */
const bare: ResultFrame = (result) => (typeof result === "string" ? result : [result]);

/**
 * The A2A v1.0 HTTP+JSON binding at `/agents/{agentId}/rest` (CONTRACT 13): the spec's paths over the same
 * request handler as JSON-RPC, in the v1.0 dialect. Streams are SSE whose events are StreamResponse objects
 * with `id: <seq>`, resumable with Last-Event-ID as everywhere.
 */
export function restHandler(deps: RestRouteDeps) {
  return async (req: Request, res: Response): Promise<void> => {
    const agentId = String(req.params.agentId);
    // A tenant segment (`/{tenant}/message:send`) is accepted and ignored: the router has one tenant.
    const path = req.path.replace(/^\/[^/]+(?=\/(message:|tasks|extendedAgentCard))/, "");
    try {
      assertA2AVersion(a2aVersionOf(req.get("a2a-version"), req.query));
      for (const [method, pattern, operation, paramsOf] of ROUTES) {
        const m = req.method === method ? pattern.exec(path) : null;
        if (!m) continue;
        const args = m.slice(1).map(decodeSegment);
        const params = paramsOf({ req, args, body: parseBody(req) });
        const lastEventId = req.get("last-event-id");
        const origin = deps.origin?.(req);
        const idempotencyKey = req.get("idempotency-key");
        const result = await deps.handler.handle(v10, operation, params, {
          agentId,
          ...(res.locals.caller && { caller: res.locals.caller }),
          ...(lastEventId !== undefined && { lastEventId }),
          ...(origin !== undefined && { origin }),
          ...(idempotencyKey !== undefined && { once: { idempotencyKey, requestDigest: requestDigest({ operation, params }) } }),
        });
        if (result.kind === "value") res.json(result.value);
        else relaySse(res, new MessageStream(result.reply, bare), deps.relay);
        return;
      }
      const { http, body } = faceError(FACE_ERRORS.noRoute, `no ${req.method} ${path} in the A2A HTTP+JSON binding`);
      res.status(http).json(body);
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

/** `params` with `field` set from a query value, when given. */
function withInt(params: Record<string, unknown>, value: unknown, field: string): Record<string, unknown> {
  const n = intParam(value, field);
  return n === undefined ? params : { ...params, [field]: n };
}

function intParam(value: unknown, field: string): number | undefined {
  if (value === undefined) return undefined;
  const n = typeof value === "string" && /^-?\d+$/.test(value) ? Number(value) : Number.NaN;
  if (!Number.isSafeInteger(n)) throw TaskError.invalidParams(`${field} must be an integer`, field);
  return n;
}
