import { pino, type Logger } from "pino";
import type { AgentConnector } from "../../router/core/agent.js";
import { agentText } from "../../router/core/model.js";
import { scriptedAgent } from "../helpers/agents.js";
import { openStream, userMessage, type SseEvent } from "../helpers/rpc.js";

export interface LogLine {
  level: number;
  msg: string;
  [field: string]: unknown;
}

/** A pino logger that keeps every line, and resolves waiters when a line's message matches. */
export function recordingLogger(): { logger: Logger; lines: LogLine[]; waitFor(re: RegExp, task?: string): Promise<void> } {
  const lines: LogLine[] = [];
  const waiters: Array<{ match: (l: LogLine) => boolean; resolve: () => void }> = [];
  const sink = {
    write(line: string) {
      const entry = JSON.parse(line) as LogLine;
      lines.push(entry);
      for (const w of waiters.splice(0)) {
        if (w.match(entry)) w.resolve();
        else waiters.push(w);
      }
    },
  };
  return {
    logger: pino({ level: "info" }, sink),
    lines,
    waitFor(re, task) {
      const match = (l: LogLine) => re.test(l.msg) && (task === undefined || l.task === task);
      if (lines.some(match)) return Promise.resolve();
      return new Promise((resolve) => waiters.push({ match, resolve }));
    },
  };
}

/** pino's number for the error level. */
export const ERROR_LEVEL = 50;

/**
 * A hosted agent that streams `chunks` artifact chunks then completes, pausing between chunks so several of
 * its tasks run at once; it records the tasks it was told to cancel (and stops on its turn's abort signal).
 */
export function steadyAgent(id: string, chunks: number) {
  const canceled: string[] = [];
  const aborted: string[] = [];
  const agent: AgentConnector = {
    ...scriptedAgent(id, async function* (ctx) {
      for (let i = 1; i <= chunks; i++) {
        await new Promise((r) => setTimeout(r, 3));
        if (ctx.signal.aborted) {
          aborted.push(ctx.task.id);
          return;
        }
        yield { kind: "artifact", artifact: { artifactId: "out", name: "out", parts: [{ kind: "text", text: `${i},` }] }, append: i > 1 };
      }
      yield { kind: "status", status: { state: "completed", message: agentText("done") }, final: true };
    }),
    async cancel(taskId: string) {
      canceled.push(taskId);
    },
  };
  return { agent, canceled, aborted };
}

/** Starts a task on `agent` and reads its stream to the end. */
export async function runTask(url: string, taskId: string, agent: string): Promise<SseEvent[]> {
  const s = await openStream(url, "tasks/sendSubscribe", { id: taskId, message: userMessage("go"), metadata: { agent } });
  return s.all();
}

export const range = (from: number, to: number): number[] => Array.from({ length: to - from + 1 }, (_, i) => from + i);
