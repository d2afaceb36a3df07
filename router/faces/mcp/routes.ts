/**
 * `/mcp` (CONTRACT 16): MCP Streamable HTTP on the SDK's transport, one per session. The route authenticates
 * (API keys as Bearer, the session bound to its key), finds or rebuilds the session from its id, plans a
 * call's task before the SDK sees the call (so the stream's first event id already names it), and serves a
 * call stream's resumption from the task log itself.
 */
import express, { type Express, type Request, type RequestHandler, type Response } from "express";
import { ErrorCode, isInitializeRequest, isJSONRPCRequest, type JSONRPCMessage, type JSONRPCRequest, McpError } from "@modelcontextprotocol/sdk/types.js";
import { TaskError } from "../../core/errors.js";
import type { Logger } from "pino";
import type { TaskService } from "../../service/task-service.js";
import { callerScope } from "../shared/http.js";
import { planCall, parseArgs } from "./call.js";
import { CallStream } from "./call-stream.js";
import { mcpError, REASON_ERRORS } from "./errors.js";
import { callEventId, parseCallEventId } from "./event-ids.js";
import { resumeCall } from "./resume.js";
import { SessionIds } from "./session-id.js";
import { McpSessions, type LiveSession } from "./sessions.js";
import { agentOfTool } from "./tools.js";
import { sendWebResponse, webRequest } from "./web-bridge.js";

export interface McpFaceDeps {
  service: TaskService;
  /** The API-key guard every client route uses (it sets `res.locals.caller`). */
  guard: RequestHandler;
  /** The Origin check, applied to every method on /mcp (GET streams too, as MCP requires). */
  originCheck: RequestHandler;
  maxBodyBytes: number;
  heartbeatMs: number;
  logger: Logger;
  /** What session ids are sealed with; every instance serving the same sessions must share it. */
  sessionSecret: string;
}

/** The face's handle: its sessions, closed with the server. */
export interface McpFace {
  close(): Promise<void>;
}

export const MCP_PATH = "/mcp";

/** A JSON-RPC error answered over HTTP (the transport's own shape for its refusals). */
function httpError(res: Response, status: number, code: number, message: string): void {
  res.status(status).json({ jsonrpc: "2.0", error: { code, message }, id: null });
}

/** Mounts `/mcp` (POST, GET, DELETE). */
export function mountMcpFace(app: Express, deps: McpFaceDeps): McpFace {
  const sessions = new McpSessions({ service: deps.service, logger: deps.logger, ids: new SessionIds(deps.sessionSecret), keepAliveMs: deps.heartbeatMs });
  const body = express.text({ type: () => true, limit: deps.maxBodyBytes });
  const pre = [deps.originCheck, deps.guard];

  /** The session the request names, or a refusal written. */
  const sessionOf = async (req: Request, res: Response): Promise<LiveSession | undefined> => {
    const id = req.get("mcp-session-id");
    if (!id) return void httpError(res, 400, -32000, "Bad Request: Mcp-Session-Id header is required");
    const session = await sessions.find(id, callerScope(res));
    if (!session) return void httpError(res, 404, -32001, "Session not found");
    return session;
  };

  app.post(MCP_PATH, pre, body, async (req: Request, res: Response) => {
    let parsed: unknown;
    try {
      parsed = JSON.parse(typeof req.body === "string" ? req.body : "");
    } catch {
      return httpError(res, 400, -32700, "Parse error: the request body is not JSON");
    }
    const messages = (Array.isArray(parsed) ? parsed : [parsed]) as JSONRPCMessage[];
    // The method first: the schema check of a message that is not an initialize costs a zod failure.
    const init = messages.filter((m) => (m as { method?: unknown }).method === "initialize").find((m) => isInitializeRequest(m));
    let session: LiveSession | undefined;
    if (init) {
      if (messages.length > 1) return httpError(res, 400, -32600, "Invalid Request: Only one initialization request is allowed");
      session = await sessions.create(init.params, callerScope(res));
    } else {
      session = await sessionOf(req, res);
      if (!session) return;
    }
    const release = sessions.hold(session);
    try {
      const requests = messages.filter((m): m is JSONRPCRequest => isJSONRPCRequest(m));
      const planned = requests.length === 1 && messages.length === 1 ? await planFor(session, requests[0]!) : undefined;
      if (planned && "refusal" in planned) {
        const { code, message, data } = planned.refusal;
        res.setHeader("mcp-session-id", session.ctx.id);
        return void res.json({ jsonrpc: "2.0", id: requests[0]!.id, error: { code, message, ...(data !== undefined && { data }) } });
      }
      // A planned call writes its progress to this response itself (call-stream.ts).
      const call = planned ? new CallStream() : undefined;
      if (call) session.ctx.streams.set(requests[0]!.id, call);
      try {
        // The priming event of this POST's stream is stored while handleRequest runs to its first await.
        session.ctx.store.primeNext(planned?.primed);
        const pending = session.transport.handleRequest(webRequest(req), { parsedBody: parsed });
        const primed = session.ctx.store.primeNext(undefined);
        const response = await pending;
        // Refused before dispatch (bad headers, a stale protocol version): no handler will take the plan.
        if (response.status >= 400) for (const r of requests) session.ctx.plans.delete(r.id);
        await sendWebResponse(response, res, call && { call, primed });
      } finally {
        if (call && session.ctx.streams.get(requests[0]!.id) === call) session.ctx.streams.delete(requests[0]!.id);
      }
    } finally {
      release();
    }
  });

  app.get(MCP_PATH, pre, async (req: Request, res: Response) => {
    const session = await sessionOf(req, res);
    if (!session) return;
    const release = sessions.hold(session);
    try {
      const lastEventId = req.get("last-event-id");
      const call = lastEventId === undefined ? undefined : parseCallEventId(lastEventId);
      if (call) {
        if (!req.get("accept")?.includes("text/event-stream")) return httpError(res, 406, -32000, "Not Acceptable: Client must accept text/event-stream");
        // A call its host cancelled here gets no response, so its stream has nothing more to say.
        if (session.ctx.cancelled.has(call.key.requestId)) return void res.status(204).end();
        return await resumeCall(res, session, call.key, call.seq, deps.heartbeatMs);
      }
      // An id this instance does not remember (sent elsewhere, or forgotten): a fresh stream, not a refusal.
      const known = lastEventId !== undefined && session.ctx.store.knows(lastEventId);
      await sendWebResponse(await session.transport.handleRequest(webRequest(req, known ? {} : { "last-event-id": undefined })), res);
    } finally {
      release();
    }
  });

  app.delete(MCP_PATH, pre, async (req: Request, res: Response) => {
    const session = await sessionOf(req, res);
    if (!session) return;
    session.ctx.closing = true;
    await sendWebResponse(await session.transport.handleRequest(webRequest(req)), res);
    await sessions.end(session);
  });

  return { close: () => sessions.close() };
}

/** A planned call: the id of its stream's priming event, or why the call is refused before it runs. */
type Planned = { primed: string } | { refusal: McpError } | undefined;

/**
 * Plans a `tools/call`'s task before the SDK dispatches it (not for task-augmented calls, which answer at
 * once): the call will run on that task, and its stream's priming event id names it, so the stream can be
 * resumed from the log even before the call's first message. A call that cannot run (unknown tool, bad
 * arguments, a task it may not continue) is refused here, as a JSON answer: an SSE stream with a priming event
 * that ends in an error makes the SDK's client resume it, in vain.
 */
async function planFor(session: LiveSession, request: JSONRPCRequest): Promise<Planned> {
  if (request.method !== "tools/call") return undefined;
  const params = request.params as
    | { name?: unknown; arguments?: Record<string, unknown>; task?: unknown; _meta?: { progressToken?: string | number } }
    | undefined;
  if (!params || typeof params.name !== "string" || params.task !== undefined) return undefined;
  const { ctx } = session;
  try {
    const agent = agentOfTool(params.name, ctx.service.listAgents(ctx.scope.caller));
    if (!agent) throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${params.name}`, { field: "name" });
    const plan = await planCall(ctx, parseArgs(params.arguments), agent.info.id);
    ctx.plans.set(request.id, plan);
    const progressToken = params._meta?.progressToken;
    const key = { requestId: request.id, taskId: plan.taskId, fromSeq: plan.fromSeq, ...(progressToken !== undefined && { progressToken }) };
    return { primed: callEventId(key, plan.fromSeq) };
  } catch (err) {
    // A problem of the turn (not a refusal) is the handler's to report, as a result with isError.
    if (err instanceof TaskError && REASON_ERRORS[err.reason].toolError) return undefined;
    return { refusal: mcpError(err) };
  }
}
