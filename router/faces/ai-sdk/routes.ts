/**
 * The Vercel AI SDK face (CONTRACT 10): `POST /api/chat` in the UI message stream protocol v1,
 * `GET /api/chat/{chatId}/stream` to resume the chat's running turn from its start (`useChat({resume: true})`),
 * and `POST /api/chat/{chatId}/cancel`, the explicit Stop. A client going away never cancels the turn.
 * Query `?events=raw` adds every A2A event as a transient `data-a2a-event` part (the chat page reads those).
 */
import express, { type Express, type Request, type RequestHandler, type Response } from "express";
import type { Logger } from "pino";
import { requestDigest } from "../../service/idempotency.js";
import type { TaskService } from "../../service/task-service.js";
import { eventBatches, startChatTurn, type TurnEvents } from "../shared/chat-turn.js";
import { callerScope, clientGone, DataStream, jsonBody } from "../shared/http.js";
import { sendBadRequest, sendRefusal } from "./errors.js";
import { refusedFile } from "../shared/file-parts.js";
import { parseUiChatRequest } from "./request.js";
import { createUiChunkReader, type UiTurn } from "./ui-chunks.js";

export interface AiSdkFaceDeps {
  service: TaskService;
  /** The API-key guard every client route uses (it sets `res.locals.caller`). */
  guard: RequestHandler;
  maxBodyBytes: number;
  heartbeatMs: number;
  logger: Logger;
}

/** The response header that names the protocol (what the AI SDK's own server helpers send). */
export const UI_STREAM_HEADERS = { "x-vercel-ai-ui-message-stream": "v1" } as const;

/** Mounts `/api/chat`, `/api/chat/:chatId/stream` and `/api/chat/:chatId/cancel`. */
export function mountAiSdkFace(app: Express, deps: AiSdkFaceDeps): void {
  const body = express.text({ type: () => true, limit: deps.maxBodyBytes });

  app.post("/api/chat", deps.guard, body, async (req: Request, res: Response) => {
    const parsed = jsonBody(req);
    if (!parsed.ok) return sendBadRequest(res, parsed.message, "body");
    const request = parseUiChatRequest(parsed.value, req);
    if (!request.ok) return sendBadRequest(res, request.message, request.field);
    const signal = clientGone(res);
    try {
      const { chatId, text, agent, files } = request.value;
      const scope = callerScope(res);
      // A UI file part's type is its mediaType: a refusal names that member.
      const refused = refusedFile(
        deps.service,
        agent,
        files.map((f) => ({ ...f, field: `${f.field}.mediaType` })),
        scope,
      );
      if (refused) return sendBadRequest(res, refused.message, refused.field);
      const parts = files.map((f) => f.part);
      const key = req.get("idempotency-key");
      const once = key === undefined ? undefined : { idempotencyKey: key, requestDigest: requestDigest(parsed.value) };
      const turn = await startChatTurn(deps.service, { agent, sessionId: chatId, text, files: parts, scope, signal, ...(once && { once }) });
      // The turn ran: sending the request again would run another (CONTRACT 14).
      res.setHeader("x-should-retry", "false");
      const ui = { taskId: turn.task.id, contextId: turn.task.contextId, agentId: turn.task.agentId, fromSeq: turn.fromSeq };
      await writeTurn(res, ui, turn.events, rawEvents(req), deps);
    } catch (err) {
      if (res.headersSent) throw err;
      sendRefusal(res, err);
    }
  });

  app.get("/api/chat/:chatId/stream", deps.guard, async (req: Request, res: Response) => {
    const scope = callerScope(res);
    try {
      const running = await deps.service.runningTurn(String(req.params.chatId), scope);
      if (!running) return void res.status(204).end();
      const { task, fromSeq } = running;
      const events = await deps.service.events(task.id, fromSeq, scope, clientGone(res));
      await writeTurn(res, { taskId: task.id, contextId: task.contextId, agentId: task.agentId, fromSeq }, events, rawEvents(req), deps);
    } catch (err) {
      if (res.headersSent) throw err;
      sendRefusal(res, err);
    }
  });

  app.post("/api/chat/:chatId/cancel", deps.guard, async (req: Request, res: Response) => {
    const scope = callerScope(res);
    try {
      const running = await deps.service.runningTurn(String(req.params.chatId), scope);
      if (!running) return void res.status(204).end();
      const task = await deps.service.cancel(running.task.id, scope);
      res.json({ taskId: task.id, state: task.status.state });
    } catch (err) {
      sendRefusal(res, err);
    }
  });
}

function rawEvents(req: Request): boolean {
  return req.query.events === "raw";
}

/** Streams one turn as UI message parts, then `[DONE]`. */
async function writeTurn(res: Response, turn: UiTurn, events: TurnEvents, raw: boolean, deps: AiSdkFaceDeps): Promise<void> {
  const stream = new DataStream(res, deps.heartbeatMs, UI_STREAM_HEADERS);
  const reader = createUiChunkReader(turn, { rawEvents: raw });
  try {
    await stream.sendAll(reader.start());
    // A batch's parts leave in one write (see eventBatches).
    for await (const batch of eventBatches(events)) {
      const chunks: unknown[] = [];
      for (const event of batch) {
        chunks.push(...reader.feed(event));
        if (reader.ended) break;
      }
      if (reader.ended) chunks.push("[DONE]");
      await stream.sendAll(chunks);
      if (reader.ended) break;
    }
  } catch (err) {
    deps.logger.error({ err }, "chat stream failed");
    if (!stream.closed) {
      await stream.send({ type: "error", errorText: "Internal error: the router could not complete the stream" });
      await stream.send("[DONE]");
    }
  } finally {
    stream.end();
  }
}
