/**
 * A `tools/call` stream resumed from the task log (`GET /mcp` with a call event id as `Last-Event-ID`): the
 * messages the call sent after that event, derived again from the log exactly as the call derived them
 * (render.ts), then live ones, then the result, each with the same event id as the first time. Any instance
 * serves it, the one running the call or not, before or after a restart.
 */
import type { Response } from "express";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { TaskError } from "../../core/errors.js";
import { SseWriter } from "../../sse/writer.js";
import type { LiveSession } from "./sessions.js";
import { messageFrame } from "./call-stream.js";
import { callEventId, type CallKey } from "./event-ids.js";
import { mcpError } from "./errors.js";
import { CallRenderer } from "./render.js";

/** Serves the call `key`'s messages after the one at `seq`; resolves when the stream is done or the client left. */
export async function resumeCall(res: Response, session: LiveSession, key: CallKey, seq: number, heartbeatMs: number): Promise<void> {
  const { ctx } = session;
  let task: Awaited<ReturnType<typeof ctx.service.get>>;
  try {
    task = await ctx.service.get(key.taskId, ctx.scope);
  } catch (err) {
    // No such task for this caller: the call never started one (it was answered with an error), or it is not
    // theirs. Either way nothing follows on this stream; 204 tells the SDK's client to stop resuming it.
    if (err instanceof TaskError && err.reason === "task-not-found") return void res.status(204).end();
    const error = mcpError(err);
    return void res.status(500).json({ jsonrpc: "2.0", id: key.requestId, error: { code: error.code, message: error.message } });
  }
  const aborter = new AbortController();
  res.on("close", () => aborter.abort());
  const writer = new SseWriter(res, heartbeatMs);
  res.setHeader("mcp-session-id", ctx.id);
  writer.open();
  const send = async (id: string, message: JSONRPCMessage): Promise<void> => {
    if (!writer.write(messageFrame(id, message))) await writer.drained();
  };
  try {
    const renderer = new CallRenderer();
    let after = key.fromSeq;
    for (;;) {
      const events = await ctx.service.events(key.taskId, after, ctx.scope, aborter.signal);
      let end: { seq: number; state: string } | undefined;
      for await (const event of events) {
        const step = renderer.feed(event);
        if (step?.type === "progress" && key.progressToken !== undefined && step.seq > seq) {
          await send(callEventId(key, step.seq), {
            jsonrpc: "2.0",
            method: "notifications/progress",
            params: { progressToken: key.progressToken, progress: step.seq, message: step.text },
          });
        } else if (step?.type === "end") end = step;
      }
      if (!end || aborter.signal.aborted) return;
      // A turn that asked back ends the call, unless the call went on: the log holds the answer's turn, or the
      // call is waiting here for the answer to the elicitation the host received (then its turn follows).
      if (end.state === "input-required" && ctx.claims.elicitation) {
        const now = await ctx.service.get(task.id, ctx.scope);
        const waitingHere = ctx.calls.get(key.requestId)?.elicitingAfter === end.seq && seq >= end.seq;
        if (now.lastSeq > end.seq || waitingHere) {
          after = end.seq;
          if (now.lastSeq === end.seq) await waitForTurn(session, key, end.seq, aborter.signal);
          if (aborter.signal.aborted) return;
          continue;
        }
      }
      if (end.seq > seq)
        await send(callEventId(key, end.seq), { jsonrpc: "2.0", id: key.requestId, result: renderer.result({ taskId: task.id, contextId: task.contextId }) });
      return;
    }
  } finally {
    writer.end();
  }
}

/** Waits until the task's log goes past `seq` (the next turn started), the call gave up asking, or the client left. */
async function waitForTurn(session: LiveSession, key: CallKey, seq: number, signal: AbortSignal): Promise<void> {
  const { ctx } = session;
  const { events } = await ctx.service.resubscribe(key.taskId, ctx.scope, { afterSeq: seq, signal });
  if (!events) return;
  const gaveUp = setInterval(() => {
    if (ctx.calls.get(key.requestId)?.elicitingAfter !== seq) events.close();
  }, 250);
  try {
    for await (const _ of events) return;
  } finally {
    clearInterval(gaveUp);
  }
}
