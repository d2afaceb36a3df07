/**
 * MCP tasks (revision 2025-11-25) on the router's own tasks: a task-augmented `tools/call` answers with the
 * router task at once, and `tasks/get`, `tasks/result`, `tasks/list`, `tasks/cancel` read and act on the
 * router's tasks, as the session's caller may see them (owner-scoped, CONTRACT 12).
 */
import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import {
  CancelTaskRequestSchema,
  GetTaskPayloadRequestSchema,
  GetTaskRequestSchema,
  ListTasksRequestSchema,
  RELATED_TASK_META_KEY,
  type Task as McpTask,
} from "@modelcontextprotocol/sdk/types.js";
import type { Task, TaskState } from "../../core/model.js";
import { partsText } from "../../core/reply.js";
import type { SessionContext } from "./context.js";
import { mcpError } from "./errors.js";
import { CallRenderer } from "./render.js";

/** How often a host is told to poll a task (ms). */
export const POLL_INTERVAL_MS = 1000;

const STATUS: Record<TaskState, McpTask["status"]> = {
  submitted: "working",
  working: "working",
  unknown: "working",
  "input-required": "input_required",
  "auth-required": "input_required",
  completed: "completed",
  failed: "failed",
  rejected: "failed",
  canceled: "cancelled",
};

/** A router task as an MCP task. */
export function mcpTask(task: Task): McpTask {
  const message = partsText(task.status.message?.parts);
  return {
    taskId: task.id,
    status: STATUS[task.status.state],
    ...(message !== "" && { statusMessage: message }),
    createdAt: task.createdAt,
    lastUpdatedAt: task.updatedAt,
    ttl: null,
    pollInterval: POLL_INTERVAL_MS,
  };
}

/** Registers the four task methods on a session's server. */
export function registerTaskHandlers(server: Server, ctx: SessionContext): void {
  const guarded =
    <A extends unknown[], R>(fn: (...args: A) => Promise<R>) =>
    async (...args: A): Promise<R> => {
      try {
        return await fn(...args);
      } catch (err) {
        throw mcpError(err);
      }
    };

  server.setRequestHandler(
    GetTaskRequestSchema,
    guarded(async (req) => mcpTask(await ctx.service.get(req.params.taskId, ctx.scope))),
  );

  // The result of every turn of the task so far, once its current turn has ended (waiting for it meanwhile).
  server.setRequestHandler(
    GetTaskPayloadRequestSchema,
    guarded(async (req, extra) => {
      const task = await ctx.service.get(req.params.taskId, ctx.scope);
      const renderer = new CallRenderer();
      for await (const event of await ctx.service.events(task.id, 0, ctx.scope, extra.signal)) renderer.feed(event);
      return { ...renderer.result({ taskId: task.id, contextId: task.contextId }), _meta: { [RELATED_TASK_META_KEY]: { taskId: task.id } } };
    }),
  );

  server.setRequestHandler(
    ListTasksRequestSchema,
    guarded(async (req) => {
      const page = await ctx.service.list({ ...(req.params?.cursor !== undefined && { pageToken: req.params.cursor }) }, ctx.scope);
      return { tasks: page.tasks.map(mcpTask), ...(page.nextPageToken !== "" && { nextCursor: page.nextPageToken }) };
    }),
  );

  server.setRequestHandler(
    CancelTaskRequestSchema,
    guarded(async (req) => mcpTask(await ctx.service.cancel(req.params.taskId, ctx.scope))),
  );
}
