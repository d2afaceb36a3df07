/**
 * The OpenAI-compatible face (CONTRACT 10): `GET /v1/models` and `POST /v1/chat/completions`, a thin
 * adapter over the task service and the reply reader. A model is an agent; the A2A session is `X-Session-Id`,
 * else the conversation's own (an answered conversation goes on in its session: service/conversations.ts);
 * `user` only labels the end user.
 */
import express, { type Express, type Request, type RequestHandler, type Response } from "express";
import type { Logger } from "pino";
import { requestDigest } from "../../service/idempotency.js";
import type { Scope } from "../../service/scope.js";
import type { TaskService } from "../../service/task-service.js";
import { eventBatches, startChatTurn, type ChatTurn } from "../shared/chat-turn.js";
import { callerScope, clientGone, DataStream, jsonBody } from "../shared/http.js";
import { createCompletionReader, type CompletionDelta, type CompletionStep } from "./completion-reader.js";
import { errorBody, fromThrown, openAiErrorBodies, REASON_ERRORS, REQUEST_ERRORS, sendError, TURN_ERRORS } from "../shared/openai-errors.js";
import { conversationDigest, parseCompletionRequest, type CompletionRequest } from "./request.js";

export interface OpenAiFaceDeps {
  service: TaskService;
  /** The API-key guard every client route uses (it sets `res.locals.caller`). */
  guard: RequestHandler;
  maxBodyBytes: number;
  heartbeatMs: number;
  logger: Logger;
}

/** Agents report no token counts. */
const NO_USAGE = { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 };

/**
 * Sent with every answer of a turn that ran, and with an idempotency conflict: the `openai` client then does not
 * send the request again (it retries a 409 and every 5xx otherwise), which would run the turn twice (CONTRACT 14).
 */
const NO_RETRY = { "x-should-retry": "false" } as const;

/** `created` of every model: agents have no creation time, the router's start is a stable stand-in. */
const STARTED = Math.floor(Date.now() / 1000);

/** Mounts `/v1/models` and `/v1/chat/completions`. */
export function mountOpenAiFace(app: Express, deps: OpenAiFaceDeps): void {
  const body = express.text({ type: () => true, limit: deps.maxBodyBytes });
  const pre = [openAiErrorBodies, deps.guard];

  app.get("/v1/models", pre, (_req: Request, res: Response) => {
    const agents = deps.service.listAgents(callerScope(res).caller);
    res.json({ object: "list", data: agents.map((a) => modelOf(a.info.id, a.isOnline())) });
  });

  app.get("/v1/models/:model", pre, (req: Request, res: Response) => {
    const agent = deps.service.findAgent(String(req.params.model), callerScope(res).caller);
    if (!agent) return sendError(res, REQUEST_ERRORS.notFound, `The model '${req.params.model}' does not exist`, "model");
    res.json(modelOf(agent.info.id, agent.isOnline()));
  });

  app.post("/v1/chat/completions", pre, body, async (req: Request, res: Response) => {
    const parsed = jsonBody(req);
    if (!parsed.ok) return sendError(res, REQUEST_ERRORS.badRequest, parsed.message);
    const request = parseCompletionRequest(parsed.value, req);
    if (!request.ok) return sendError(res, REQUEST_ERRORS.badRequest, request.message, request.param);
    const scope = callerScope(res);
    const agent = deps.service.findAgent(request.value.model, scope.caller);
    if (!agent) return sendError(res, REQUEST_ERRORS.notFound, `The model '${request.value.model}' does not exist`, "model");
    const { model, text, user } = request.value;
    const key = req.get("idempotency-key");
    const signal = clientGone(res);
    let turn: ChatTurn;
    try {
      const sessionId = request.value.sessionId ?? (await sessionOf(deps.service, agent.info.id, request.value, scope));
      turn = await startChatTurn(deps.service, {
        agent: model,
        sessionId,
        text,
        scope,
        signal,
        ...(key !== undefined && { once: { idempotencyKey: key, requestDigest: requestDigest(parsed.value) } }),
        ...(user !== undefined && { metadata: { user } }),
      });
    } catch (err) {
      const { err: e, message, param } = fromThrown(err);
      if (e.status >= 500) deps.logger.warn({ err }, "chat completion refused");
      if (e === REASON_ERRORS["idempotency-conflict"]) res.set(NO_RETRY);
      return sendError(res, e, message, param);
    }
    res.setHeader("X-Task-Id", turn.task.id);
    res.setHeader("X-Session-Id", turn.task.contextId);
    res.set(NO_RETRY);
    // What the next request of this conversation will send back as its earlier messages: recorded before the
    // answer goes out, so that request finds it.
    // Not recorded (the store failed): the next request starts a new session, which is no reason to fail this one.
    const answered = (answer: string) =>
      deps.service
        .rememberConversation(agent.info.id, conversationDigest([...request.value.asked, ["assistant", answer.trim()]]), turn.task.contextId, scope)
        .catch((err: unknown) => deps.logger.warn({ err }, "chat conversation not recorded"));
    if (request.value.stream) await streamCompletion(res, turn, request.value, deps, answered);
    else await answerCompletion(res, turn, request.value, answered);
  });
}

/** An agent as an OpenAI model; `a2a.online` lets a picker mark agents that cannot answer now. */
function modelOf(id: string, online: boolean) {
  return { id, object: "model", created: STARTED, owned_by: "a2a-router", a2a: { online } };
}

/** The OpenAI fields every reply and chunk share, plus the router's ids under `a2a` (cancel needs them). */
function envelope(turn: ChatTurn, request: CompletionRequest, object: string) {
  return {
    id: `chatcmpl-${turn.task.id}`,
    object,
    created: Math.floor(Date.now() / 1000),
    model: request.model,
    a2a: { taskId: turn.task.id, contextId: turn.task.contextId },
  };
}

/**
 * The session a request without `X-Session-Id` goes on in: the one of the conversation its earlier messages
 * are, when the router answered exactly those; a new one otherwise (undefined).
 */
async function sessionOf(service: TaskService, agentId: string, request: CompletionRequest, scope: Scope): Promise<string | undefined> {
  return request.earlier === undefined ? undefined : service.conversationSession(agentId, request.earlier, scope);
}

/** Records the answered conversation (its text as the client shows it) under the turn's session. */
type Answered = (answer: string) => Promise<void>;

async function answerCompletion(res: Response, turn: ChatTurn, request: CompletionRequest, answered: Answered): Promise<void> {
  const reader = createCompletionReader();
  let end: { state: string; answer: string; error?: string } | undefined;
  for await (const event of turn.events) {
    end = reader.feed(event).end;
    if (end) break;
  }
  if (!end) return void res.end(); // the client went away
  if (end.error !== undefined) {
    const err = TURN_ERRORS[end.state as keyof typeof TURN_ERRORS] ?? TURN_ERRORS.failed;
    return void res.status(err.status).json(errorBody(err, end.error));
  }
  await answered(end.answer);
  const reasoning = reader.reasoning;
  res.json({
    ...envelope(turn, request, "chat.completion"),
    choices: [
      {
        index: 0,
        message: { role: "assistant", content: end.answer, ...(reasoning !== "" && { reasoning_content: reasoning }), refusal: null },
        finish_reason: "stop",
        logprobs: null,
      },
    ],
    usage: NO_USAGE,
  });
}

async function streamCompletion(res: Response, turn: ChatTurn, request: CompletionRequest, deps: OpenAiFaceDeps, answered: Answered): Promise<void> {
  const stream = new DataStream(res, deps.heartbeatMs);
  const base = envelope(turn, request, "chat.completion.chunk");
  const chunk = (delta: CompletionDelta | Record<string, never>, finish: "stop" | null = null) => ({
    ...base,
    choices: [{ index: 0, delta, finish_reason: finish, logprobs: null }],
  });
  // A delta's chunk as text: the envelope rendered once, only the delta stringified per chunk (the same JSON
  // as `chunk(delta)`, without an object and a copy of the envelope per event).
  const head = `${JSON.stringify(base).slice(0, -1)},"choices":[{"index":0,"delta":`;
  const deltaChunk = (delta: CompletionDelta) => `${head}${JSON.stringify(delta)},"finish_reason":null,"logprobs":null}]}`;
  const reader = createCompletionReader();
  try {
    await stream.send(chunk({ role: "assistant", content: "" } as CompletionDelta));
    // A batch's chunks leave in one write (see eventBatches).
    for await (const batch of eventBatches(turn.events)) {
      const out: unknown[] = [];
      let end: CompletionStep["end"];
      for (const event of batch) {
        const step = reader.feed(event);
        for (const delta of step.deltas) out.push(deltaChunk(delta));
        end = step.end;
        if (end) break;
      }
      if (end) {
        if (end.error !== undefined) {
          const err = TURN_ERRORS[end.state as keyof typeof TURN_ERRORS] ?? TURN_ERRORS.failed;
          out.push(errorBody(err, end.error));
        } else {
          // Recorded before the answer goes out, so the conversation's next request finds it.
          await answered(reader.content);
          out.push(chunk({}, "stop"));
          if (request.includeUsage) out.push({ ...base, choices: [], usage: NO_USAGE });
        }
        out.push("[DONE]");
      }
      await stream.sendAll(out);
      if (end) break;
    }
  } catch (err) {
    deps.logger.error({ err }, "chat completion stream failed");
    const { err: e, message } = fromThrown(err);
    if (!stream.closed) {
      await stream.send(errorBody(e, message));
      await stream.send("[DONE]");
    }
  } finally {
    stream.end();
  }
}
