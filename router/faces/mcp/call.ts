/**
 * `tools/call`: one turn of the tool's agent through the task service (CONTRACT 16). Status lines become
 * progress notifications when the host sent a progress token; a turn that asks back is put to the host as a
 * form elicitation when it declared that capability (the answer continues the same task in the same call),
 * else the question is the result and a later call with its `taskId` continues. The host cancelling the
 * request (`notifications/cancelled`) cancels the task; a dropped connection never does.
 */
import { randomUUID } from "node:crypto";
import type { RequestHandlerExtra } from "@modelcontextprotocol/sdk/shared/protocol.js";
import {
  type CallToolRequest,
  type CallToolResult,
  type CreateTaskResult,
  ElicitResultSchema,
  ErrorCode,
  McpError,
  type ServerNotification,
  type ServerRequest,
} from "@modelcontextprotocol/sdk/types.js";
import { TaskError } from "../../core/errors.js";
import type { Message, SendRequest, StreamEvent } from "../../core/model.js";
import { type CallPlan, type SessionContext, MCP_DIALECT } from "./context.js";
import { answerText, elicitationFor } from "./elicitation.js";
import { progressFrame } from "./call-stream.js";
import { callEventId, callEventIdPrefix, type CallKey } from "./event-ids.js";
import { assignEventId } from "./event-store.js";
import { toolFailure } from "./errors.js";
import { CallRenderer } from "./render.js";
import { mcpTask } from "./tasks.js";
import { agentOfTool } from "./tools.js";

type Extra = RequestHandlerExtra<ServerRequest, ServerNotification>;

/** How long a call waits for the host's answer to an elicitation before it answers with the question. */
export const ELICITATION_TIMEOUT_MS = 600_000;

/** A tool's arguments, checked. */
export interface CallArgs {
  message: string;
  contextId?: string;
  taskId?: string;
}

/** The arguments of a call, or an InvalidParams error naming the field at fault. */
export function parseArgs(args: Record<string, unknown> | undefined): CallArgs {
  const message = args?.message;
  if (typeof message !== "string" || message === "")
    throw new McpError(ErrorCode.InvalidParams, "arguments.message is required and must be a non-empty string", { field: "arguments.message" });
  const out: CallArgs = { message };
  for (const field of ["contextId", "taskId"] as const) {
    const value = args?.[field];
    if (value === undefined || value === null) continue;
    if (typeof value !== "string" || value === "")
      throw new McpError(ErrorCode.InvalidParams, `arguments.${field} must be a non-empty string`, { field: `arguments.${field}` });
    out[field] = value;
  }
  return out;
}

/**
 * The task a call runs: the one named by `taskId` (it must be the tool's agent's), else the newest task of
 * `contextId` waiting for input from this agent (CONTRACT 14), else a new one with an id chosen now.
 */
export async function planCall(ctx: SessionContext, args: CallArgs, agentId: string): Promise<CallPlan> {
  if (args.taskId !== undefined) {
    const task = await ctx.service.get(args.taskId, ctx.scope);
    if (task.agentId !== agentId) throw TaskError.invalidParams(`task ${task.id} belongs to another agent's tool ("${task.agentId}")`, "arguments.taskId");
    return { taskId: task.id, existing: true, fromSeq: task.lastSeq };
  }
  if (args.contextId !== undefined) {
    const { tasks } = await ctx.service.list({ contextId: args.contextId, state: "input-required", pageSize: 100 }, ctx.scope);
    const waiting = tasks.find((t) => t.agentId === agentId);
    if (waiting) return { taskId: waiting.id, existing: true, fromSeq: waiting.lastSeq };
  }
  return { taskId: randomUUID(), existing: false, fromSeq: 0 };
}

/** Handles one `tools/call` (task-augmented: starts the turn and answers with the task at once). */
export async function runToolCall(ctx: SessionContext, request: CallToolRequest, extra: Extra): Promise<CallToolResult | CreateTaskResult> {
  const agent = agentOfTool(request.params.name, ctx.service.listAgents(ctx.scope.caller));
  if (!agent) throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${request.params.name}`, { field: "name" });
  const args = parseArgs(request.params.arguments);
  try {
    const plan = ctx.plans.get(extra.requestId) ?? (await planCall(ctx, args, agent.info.id));
    ctx.plans.delete(extra.requestId);
    const started = await ctx.service.start(sendOf(plan.taskId, args.contextId, args.message, agent.info.id), MCP_DIALECT, ctx.scope);
    if (request.params.task) return { task: mcpTask(started.task) };
    const progressToken = request.params._meta?.progressToken;
    const key: CallKey = {
      requestId: extra.requestId,
      taskId: started.task.id,
      fromSeq: started.fromSeq,
      ...(progressToken !== undefined && { progressToken }),
    };
    ctx.calls.set(extra.requestId, { taskId: started.task.id });
    try {
      return await followCall(ctx, key, agent.info.id, extra);
    } finally {
      ctx.calls.delete(extra.requestId);
    }
  } catch (err) {
    ctx.plans.delete(extra.requestId);
    return toolFailure(err);
  }
}

/** The message of a turn. */
function sendOf(taskId: string, contextId: string | undefined, text: string, agentId: string): SendRequest {
  const message: Message = { role: "user", parts: [{ kind: "text", text }], messageId: randomUUID() };
  return { taskId, ...(contextId !== undefined && { contextId }), message, metadata: {}, agentId };
}

/** A turn's end as the call reads it. */
type TurnEnd = { seq: number; state: string; answer: string; metadata: Record<string, unknown> };

/** Reads the call's events until its last turn ends, reporting progress and asking back as the host allows. */
async function followCall(ctx: SessionContext, key: CallKey, agentId: string, extra: Extra): Promise<CallToolResult> {
  const renderer = new CallRenderer();
  const idPrefix = callEventIdPrefix(key);
  let after = key.fromSeq;
  let contextId = "";
  for (;;) {
    const events = await ctx.service.events(key.taskId, after, ctx.scope, extra.signal);
    let end: TurnEnd | undefined;
    try {
      for (let batch = await events.nextBatch(); !batch.done; batch = await events.nextBatch()) {
        contextId = batch.value[batch.value.length - 1]!.contextId;
        end = (await reportBatch(ctx, key, idPrefix, renderer, batch.value, extra)) ?? end;
      }
    } catch (err) {
      events.close();
      throw err;
    }
    if (extra.signal.aborted) return cancelled(ctx, key, extra);
    if (!end) throw TaskError.internal("the task's events ended before its turn did");
    if (end.state === "input-required" && ctx.claims.elicitation) {
      const answer = await elicit(ctx, key, end, extra);
      if (extra.signal.aborted) return cancelled(ctx, key, extra);
      if (answer !== undefined) {
        try {
          await ctx.service.start(sendOf(key.taskId, contextId, answer, agentId), MCP_DIALECT, ctx.scope);
          after = end.seq;
          continue;
        } catch (err) {
          ctx.logger.info({ err, taskId: key.taskId }, "mcp: the elicitation answer could not continue the task");
        }
      }
    }
    ctx.store.assignResponse(key.requestId, callEventId(key, end.seq));
    return renderer.result({ taskId: key.taskId, contextId });
  }
}

/**
 * Feeds a batch of the call's events to its renderer and reports their status lines as progress: written to
 * the call's own stream in one write when it has one (call-stream.ts), else one `sendNotification` each.
 * Returns the end of the turn when the batch holds it.
 */
async function reportBatch(
  ctx: SessionContext,
  key: CallKey,
  idPrefix: string,
  renderer: CallRenderer,
  batch: readonly StreamEvent[],
  extra: Extra,
): Promise<TurnEnd | undefined> {
  const stream = ctx.streams.get(key.requestId);
  const token = key.progressToken;
  const frames: string[] = [];
  let end: TurnEnd | undefined;
  for (const event of batch) {
    const step = renderer.feed(event);
    if (step?.type === "end") end = step;
    else if (step?.type === "progress" && token !== undefined) {
      if (stream) frames.push(progressFrame(idPrefix + step.seq, token, step.seq, step.text));
      else {
        const params = { progressToken: token, progress: step.seq, message: step.text };
        assignEventId(params, idPrefix + step.seq);
        await extra.sendNotification({ method: "notifications/progress", params });
      }
    }
  }
  // As sendNotification does, nothing more is sent once the host cancelled the request.
  if (stream && !extra.signal.aborted && !stream.write(frames)) await stream.drained();
  return end;
}

/** Asks the host the turn's question; the answer's text, or undefined (declined, cancelled, timed out). */
async function elicit(
  ctx: SessionContext,
  key: CallKey,
  end: { seq: number; answer: string; metadata: Record<string, unknown> },
  extra: Extra,
): Promise<string | undefined> {
  const params = elicitationFor(end.answer, end.metadata);
  // Hosts of revisions before 2025-11-25 know form elicitation only, without its `mode`.
  if (ctx.claims.protocolVersion < "2025-11-25") delete (params as { mode?: string }).mode;
  assignEventId(params, callEventId(key, end.seq));
  const live = ctx.calls.get(key.requestId);
  if (live) live.elicitingAfter = end.seq;
  try {
    return answerText(await extra.sendRequest({ method: "elicitation/create", params }, ElicitResultSchema, { timeout: ELICITATION_TIMEOUT_MS }));
  } catch (err) {
    ctx.logger.info({ err: err instanceof Error ? err.message : String(err), taskId: key.taskId }, "mcp: elicitation got no answer");
    return undefined;
  } finally {
    if (live) delete live.elicitingAfter;
  }
}

/**
 * The host cancelled the request: the task is cancelled too (unless the session is closing, which aborts its
 * calls without a word from the host). Nothing is sent back: a cancelled request gets no response, and its
 * stream is closed (the host's resumption of it is answered 204, see routes.ts), so it holds no connection.
 */
async function cancelled(ctx: SessionContext, key: CallKey, extra: Extra): Promise<CallToolResult> {
  if (!ctx.closing) {
    ctx.cancelled.add(key.requestId);
    for (const old of ctx.cancelled) {
      if (ctx.cancelled.size <= CANCELLED_MEMORY) break;
      ctx.cancelled.delete(old);
    }
    try {
      await ctx.service.cancel(key.taskId, ctx.scope);
    } catch (err) {
      if (!(err instanceof TaskError && err.reason === "task-not-cancelable")) ctx.logger.warn({ err, taskId: key.taskId }, "mcp: cancelling the task failed");
    }
    extra.closeSSEStream?.();
  }
  return { content: [{ type: "text", text: "cancelled" }], isError: true };
}

/** Calls a session remembers as cancelled by its host (their streams' resumptions end at once). */
const CANCELLED_MEMORY = 256;
