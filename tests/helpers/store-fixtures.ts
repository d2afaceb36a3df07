/** Tasks, events and times the store suites build their cases from (tests/store.contract.ts and its parts). */
import { agentText, type LoggedEvent, type Task } from "../../router/core/model.js";

const T0 = Date.UTC(2025, 0, 1);
/** An ISO time `n` seconds after a fixed origin. */
export const at = (n: number): string => new Date(T0 + n * 1000).toISOString();

export function makeTask(id: string, over: Partial<Task> = {}): Task {
  return {
    id,
    contextId: "ctx-1",
    agentId: "echo",
    dialect: "v0.3",
    status: { state: "working" },
    artifacts: [],
    history: [{ role: "user", parts: [{ kind: "text", text: `hello ${id}` }] }],
    metadata: {},
    createdAt: at(0),
    updatedAt: at(0),
    lastSeq: 0,
    ...over,
  };
}

export function makeEvent(taskId: string, seq: number, contextId = "ctx-1"): LoggedEvent {
  const status = { state: "working" as const, message: agentText(`e${seq}`) };
  return { kind: "status", status, final: false, taskId, contextId, seq };
}

/** The integers from `from` to `to`, both included. */
export const range = (from: number, to: number): number[] => Array.from({ length: to - from + 1 }, (_, i) => from + i);
