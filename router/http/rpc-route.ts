import type { Request, Response } from "express";
import type { Logger } from "pino";
import type { RouterMetrics } from "../observability/metrics.js";
import { jsonPieces } from "../core/json-pieces.js";
import { failure } from "../jsonrpc/envelope.js";
import { drained } from "../net/drained.js";
import { RpcError } from "../rpc/errors.js";
import type { Dispatcher } from "../rpc/dispatcher.js";
import { exceedsDepth, MAX_JSON_DEPTH } from "../schema/depth.js";
import { relaySse } from "../sse/relay.js";
import { callerOf } from "./auth.js";
import { requestOrigin } from "./origin.js";
import { sseOptions } from "./sse-options.js";

export interface RpcRouteDeps {
  dispatcher: Dispatcher;
  heartbeatMs: number;
  logger: Logger;
  metrics: RouterMetrics;
}

/** The express adapter around the dispatcher: parses the body, answers JSON, or frames a stream's messages as SSE. */
export function rpcHandler(deps: RpcRouteDeps) {
  return async (req: Request, res: Response): Promise<void> => {
    let body: unknown;
    try {
      body = JSON.parse(typeof req.body === "string" ? req.body : "");
      // A stream keeps its request for its whole life: the raw text is not needed once parsed.
      req.body = undefined;
    } catch {
      // JSON.parse's own text names JavaScript internals; the client only needs to know the body is not JSON.
      res.status(200).json(failure(null, RpcError.parse("the body is not valid JSON").toJSON()));
      return;
    }
    if (exceedsDepth(body)) {
      res.status(200).json(failure(null, RpcError.invalidRequest(`JSON nests deeper than ${MAX_JSON_DEPTH} levels`).toJSON()));
      return;
    }
    const result = await deps.dispatcher.dispatch(body, {
      // v1.0 3.6: the version may also come as a query parameter.
      a2aVersion: req.get("a2a-version") ?? (typeof req.query["A2A-Version"] === "string" ? req.query["A2A-Version"] : undefined),
      lastEventId: req.get("last-event-id"),
      pathAgentId: typeof req.params.agentId === "string" ? req.params.agentId : undefined,
      caller: callerOf(res),
      origin: requestOrigin(req),
      idempotencyKey: req.get("idempotency-key"),
    });
    if (result.kind === "json") {
      if (result.body === undefined) res.status(204).end();
      else await sendJson(res, result.body);
      return;
    }
    // The handler returns now and the stream goes on without it, so nothing of the request's routing stays
    // reachable from an idle stream: not this handler's frame (the parsed body), and not express's router
    // state for the request, which `req.next` would keep for as long as the connection lives.
    req.next = undefined;
    relaySse(res, result.messages, sseOptions(deps));
  };
}

/**
 * res.json without the ETag (hashing every answer buys nothing on a POST: no conditional requests), and written
 * in pieces (core/json-pieces.ts): a task that holds a 10 MB text is a 30 MB answer, which as one string would be
 * built, flattened and encoded whole (three copies of it at once). A small answer is one piece, sent with its
 * Content-Length; a larger one goes out chunked, a piece at a time as the client takes them, so an answer
 * being sent holds about one piece of the router's memory besides the task it renders.
 */
async function sendJson(res: Response, body: unknown): Promise<void> {
  res.statusCode = 200;
  res.setHeader("Content-Type", "application/json; charset=utf-8");
  const pieces = jsonPieces(body);
  const first = pieces.next();
  const second = first.done ? first : pieces.next();
  if (second.done) return void res.end(first.done ? undefined : first.value);
  res.write(first.value);
  for (let next: IteratorResult<string, void> = second; !next.done; next = pieces.next()) {
    if (!res.write(next.value) && !(await drained(res))) return;
  }
  res.end();
}
