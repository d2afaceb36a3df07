/**
 * The OpenAI Responses face (CONTRACT 15): `POST /v1/responses`, `GET /v1/responses/{id}` (also as a stream
 * from a sequence number), `POST /v1/responses/{id}/cancel`. A thin adapter over the task service: a model is
 * an agent, a response is one turn of a task, `previous_response_id` continues that response's session (A2A
 * context), and every event a client sees is translated from the task's log (response-events.ts).
 */
import { createHash, randomUUID } from "node:crypto";
import express, { type Express, type Request, type RequestHandler, type Response } from "express";
import type { Logger } from "pino";
import { TaskError } from "../../core/errors.js";
import { requestDigest, type TurnOnce } from "../../service/idempotency.js";
import type { Scope } from "../../service/scope.js";
import type { TaskService } from "../../service/task-service.js";
import { eventBatches, startChatTurn, type ChatTurn, type TurnEvents } from "../shared/chat-turn.js";
import { refusedFile } from "../shared/file-parts.js";
import { callerScope, clientGone, DataStream, jsonBody } from "../shared/http.js";
import { fromThrown, openAiErrorBodies, REASON_ERRORS, REQUEST_ERRORS, sendError } from "../shared/openai-errors.js";
import { parseResponsesRequest, type ResponsesRequest } from "./request.js";
import { createResponseTranslator, type ResponseBase, type ResponseEvent } from "./response-events.js";
import { findResponse, readResponse, RESPONSE_METADATA_KEY, responseBase, type AskedWith } from "./response-turn.js";

export interface ResponsesFaceDeps {
  service: TaskService;
  /** The API-key guard every client route uses (it sets `res.locals.caller`). */
  guard: RequestHandler;
  maxBodyBytes: number;
  heartbeatMs: number;
  logger: Logger;
}

/** Mounts `/v1/responses`, `/v1/responses/:id` and `/v1/responses/:id/cancel`. */
export function mountResponsesFace(app: Express, deps: ResponsesFaceDeps): void {
  const body = express.text({ type: () => true, limit: deps.maxBodyBytes });
  const pre = [openAiErrorBodies, deps.guard];

  app.post("/v1/responses", pre, body, async (req: Request, res: Response) => {
    const parsed = jsonBody(req);
    if (!parsed.ok) return sendError(res, REQUEST_ERRORS.badRequest, parsed.message, "body");
    const request = parseResponsesRequest(parsed.value, req);
    if (!request.ok) return sendError(res, REQUEST_ERRORS.badRequest, request.message, request.param);
    const key = request.value.idempotencyKey;
    const once = key === undefined ? undefined : { idempotencyKey: key, requestDigest: requestDigest(parsed.value) };
    try {
      await createResponse(res, request.value, deps, once);
    } catch (err) {
      refuse(res, err, deps, "response refused");
    }
  });

  app.get("/v1/responses/:id", pre, async (req: Request, res: Response) => {
    const query = streamQuery(req);
    if (!query.ok) return sendError(res, REQUEST_ERRORS.badRequest, query.message, query.param);
    const scope = callerScope(res);
    try {
      const found = await findResponse(deps.service, String(req.params.id), scope);
      if (!found) return notFound(res, String(req.params.id));
      if (!query.stream) return void res.json(await readResponse(deps.service, found, scope, "now"));
      const events = await deps.service.events(found.task.id, found.fromSeq, scope, clientGone(res));
      await streamResponse(res, found.base, events, query.startingAfter, deps);
    } catch (err) {
      refuse(res, err, deps, "response read failed");
    }
  });

  app.post("/v1/responses/:id/cancel", pre, async (req: Request, res: Response) => {
    const scope = callerScope(res);
    try {
      const found = await findResponse(deps.service, String(req.params.id), scope);
      if (!found) return notFound(res, String(req.params.id));
      const now = await readResponse(deps.service, found, scope, "now");
      if (now.status === "cancelled") return void res.json(now);
      if (now.status === "completed" || now.status === "failed") {
        return sendError(res, REASON_ERRORS["task-not-cancelable"], `response ${now.id} is already ${now.status}; only a running response can be cancelled`);
      }
      await deps.service.cancel(found.task.id, scope);
      res.json(await readResponse(deps.service, found, scope, "end", clientGone(res)));
    } catch (err) {
      refuse(res, err, deps, "response cancel failed");
    }
  });
}

/** Starts the turn, then answers: at once (background), as a stream, or once the turn ended. */
async function createResponse(res: Response, request: ResponsesRequest, deps: ResponsesFaceDeps, once?: TurnOnce): Promise<void> {
  const scope = callerScope(res);
  if (!deps.service.findAgent(request.model, scope.caller)) {
    return sendError(res, REQUEST_ERRORS.notFound, `The model '${request.model}' does not exist`, "model");
  }
  const refused = refusedFile(deps.service, request.model, request.files, scope);
  if (refused) return sendError(res, REQUEST_ERRORS.badRequest, refused.message, refused.field);
  let sessionId: string | undefined;
  if (request.previousResponseId !== undefined) {
    const previous = await findResponse(deps.service, request.previousResponseId, scope);
    if (!previous) return notFound(res, request.previousResponseId, "previous_response_id");
    sessionId = previous.task.contextId;
  }
  const asked: AskedWith = {
    createdAt: Math.floor(Date.now() / 1000),
    background: request.background,
    metadata: request.metadata,
    previousResponseId: request.previousResponseId ?? null,
  };
  // A retry with the same Idempotency-Key gets the first request's turn: its message carries an id made from
  // the key, so the response id (which names the message's place in the task) is found again.
  const messageId = once?.idempotencyKey ? `resp-${createHash("sha256").update(once.idempotencyKey).digest("base64url").slice(0, 32)}` : randomUUID();
  // A background response that is not streamed reads none of its events here: its reader closes at once.
  const signal = request.background && !request.stream ? AbortSignal.abort() : clientGone(res);
  const turn = await startChatTurn(deps.service, {
    agent: request.model,
    sessionId,
    text: request.text,
    files: request.files.map((f) => f.part),
    messageId,
    messageMetadata: { [RESPONSE_METADATA_KEY]: asked },
    scope,
    signal,
    ...(once && { once }),
  });
  const base = responseBase(turn.task, turn.fromSeq, await messageIndex(turn, messageId, deps.service, scope), asked);
  res.setHeader("X-Task-Id", turn.task.id);
  res.setHeader("X-Session-Id", turn.task.contextId);
  if (request.stream) return streamResponse(res, base, turn.events, -1, deps);
  const translator = createResponseTranslator(base);
  translator.start();
  if (!request.background) {
    for await (const event of turn.events) {
      translator.feed(event);
      if (translator.ended) break;
    }
    if (!translator.ended) return void res.end(); // the client went away; the turn goes on
  }
  res.json(translator.response());
}

/** Where the turn's user message sits in its task's history (what the response id names). */
async function messageIndex(turn: ChatTurn, messageId: string, service: TaskService, scope: Scope): Promise<number> {
  const index = turn.task.history.findLastIndex((m) => m.messageId === messageId);
  if (index >= 0) return index;
  // A turn placed on another instance may answer with the task as it was stored before the message joined it.
  const task = await service.get(turn.task.id, scope);
  const stored = task.history.findLastIndex((m) => m.messageId === messageId);
  if (stored < 0) throw TaskError.internal("the router could not find the response's message in its task");
  return stored;
}

/**
 * Streams the response's events with a sequence number after `startingAfter`, then ends with the turn. The
 * events a batch of the task's events makes leave in one write (see eventBatches): a progress line is four
 * typed events, and a write each was a `writev` per event.
 */
async function streamResponse(res: Response, base: ResponseBase, events: TurnEvents, startingAfter: number, deps: ResponsesFaceDeps) {
  const stream = new DataStream(res, deps.heartbeatMs);
  const translator = createResponseTranslator(base);
  const send = (out: ResponseEvent[]) => stream.sendAll(startingAfter < 0 ? out : out.filter((e) => e.sequence_number > startingAfter), eventType);
  try {
    await send(translator.start());
    for await (const batch of eventBatches(events)) {
      const out: ResponseEvent[] = [];
      for (const event of batch) {
        translator.feed(event, out);
        if (translator.ended) break;
      }
      await send(out);
      if (translator.ended) break;
    }
  } catch (err) {
    // The stream is open: nothing to answer in its place. The client resumes from its last sequence number.
    deps.logger.error({ err, response: base.id }, "response stream failed");
  } finally {
    stream.end();
  }
}

const eventType = (event: ResponseEvent): string => event.type;

/** `?stream=true&starting_after=N` of a GET. */
function streamQuery(req: Request): { ok: true; stream: boolean; startingAfter: number } | { ok: false; message: string; param: string } {
  const { stream, starting_after: after } = req.query;
  if (stream !== undefined && stream !== "true" && stream !== "false") return { ok: false, message: "stream must be true or false", param: "stream" };
  if (after !== undefined && (typeof after !== "string" || !/^\d{1,15}$/.test(after)))
    return { ok: false, message: "starting_after must be a sequence number (an integer >= 0)", param: "starting_after" };
  if (after !== undefined && stream !== "true") return { ok: false, message: "starting_after needs stream=true", param: "starting_after" };
  return { ok: true, stream: stream === "true", startingAfter: after === undefined ? -1 : Number(after) };
}

function notFound(res: Response, id: string, param = "response_id"): void {
  sendError(res, REQUEST_ERRORS.responseNotFound, `No response found with id '${id}'`, param);
}

function refuse(res: Response, err: unknown, deps: ResponsesFaceDeps, what: string): void {
  if (res.headersSent) {
    deps.logger.error({ err }, what);
    return void res.end();
  }
  const { err: e, message, param } = fromThrown(err);
  if (e.status >= 500) deps.logger.warn({ err }, what);
  // A conflicting retry must not be sent again by the client (CONTRACT 14).
  if (e === REASON_ERRORS["idempotency-conflict"]) res.set("x-should-retry", "false");
  sendError(res, e, message, param);
}
