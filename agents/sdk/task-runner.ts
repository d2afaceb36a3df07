import { artifactParams, completeParams, HUB_METHODS, statusParams } from "./protocol.js";
import type { FinalState, SkillHandler, SkillResult, SkillReturn, TaskContext } from "./types.js";

/** Hands one frame to the link (sent now, or kept until the agent is registered again). */
export type SendFrame = (method: string, params: unknown) => Promise<void>;

const FINAL_STATES: ReadonlySet<string> = new Set<FinalState>(["completed", "failed", "canceled", "input-required", "rejected"]);

function isAsyncIterable(value: unknown): value is AsyncIterable<unknown> {
  return typeof value === "object" && value !== null && typeof (value as AsyncIterable<unknown>)[Symbol.asyncIterator] === "function";
}

function chunkText(chunk: unknown): string {
  if (typeof chunk === "string") return chunk;
  if (chunk && typeof chunk === "object" && typeof (chunk as { text?: unknown }).text === "string") {
    return (chunk as { text: string }).text;
  }
  return chunk === undefined || chunk === null ? "" : String(chunk);
}

function errorText(err: unknown): string {
  if (err instanceof Error) return err.message || err.name;
  return String(err);
}

/**
 * Runs a task's handler: streams a generator's chunks as `task.status`, then ends the turn with one
 * `task.complete`. A throw fails the task with its message. Once `ctx.signal` is aborted (the client
 * canceled; the router has already ended the task) nothing more is sent and a generator is not pulled again.
 * `chunks`: the current turn's streamed chunks, the default answer; `ctx.ask` ends a turn, so it empties them.
 */
export async function runTask(handler: SkillHandler, text: string, ctx: TaskContext, send: SendFrame, chunks: string[] = []): Promise<void> {
  const { taskId, signal } = ctx;
  try {
    const out = handler(text, ctx);
    let returned: SkillReturn;
    let streamed: string | undefined;
    if (isAsyncIterable(out)) {
      const iterator = out[Symbol.asyncIterator]() as AsyncIterator<unknown, SkillReturn>;
      for (;;) {
        const step = await iterator.next();
        if (step.done) {
          returned = step.value;
          break;
        }
        if (signal.aborted) {
          await iterator.return?.(undefined);
          return;
        }
        const chunk = chunkText(step.value);
        if (chunk === "") continue;
        chunks.push(chunk);
        await send(HUB_METHODS.TASK_STATUS, statusParams(taskId, chunk));
      }
      streamed = chunks.join("");
    } else {
      returned = await out;
    }
    if (signal.aborted) return;
    const result: SkillResult = typeof returned === "string" ? { text: returned } : (returned ?? {});
    for (const artifact of result.artifacts ?? []) await send(HUB_METHODS.TASK_ARTIFACT, artifactParams(taskId, artifact));
    const state = result.state ?? "completed";
    if (!FINAL_STATES.has(state)) throw new Error(`skill returned an unknown state "${String(state)}"`);
    await send(HUB_METHODS.TASK_COMPLETE, completeParams(taskId, state, result.text ?? streamed ?? "", result.metadata));
  } catch (err) {
    if (signal.aborted) return;
    await send(HUB_METHODS.TASK_COMPLETE, completeParams(taskId, "failed", errorText(err)));
  }
}
