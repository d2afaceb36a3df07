import { expect } from "@jest/globals";
import { randomUUID } from "node:crypto";
import type { Json } from "../helpers/rpc.js";
import type { SdkAgent } from "./sdk-agent.js";

export type ClientDialect = "v0.1" | "v0.3" | "v1.0";

/** One client's requests in its own dialect, as a stock client of that A2A generation sends them. */
export interface DialectClient {
  send: string;
  stream: string;
  get: string;
  cancel: string;
  headers: Record<string, string>;
  /** Send params for `text`; naming `taskId` continues that task (input-required). */
  params(text: string, taskId?: string): Json;
  /** The router's task id in a send result or a stream event. */
  taskIdOf(result: Json): string;
  /** The task state in a send result or a stream's status event, in the internal (v0.3) spelling. */
  stateOf(result: Json): string | undefined;
}

const V10_STATE = (s: string | undefined) =>
  s
    ?.replace(/^TASK_STATE_/, "")
    .toLowerCase()
    .replace("_", "-");

export const CLIENTS: Record<ClientDialect, DialectClient> = {
  "v0.1": {
    send: "tasks/send",
    stream: "tasks/sendSubscribe",
    get: "tasks/get",
    cancel: "tasks/cancel",
    headers: {},
    params: (text, taskId) => ({ id: taskId ?? randomUUID(), message: { role: "user", parts: [{ type: "text", text }] } }),
    taskIdOf: (r) => r.id,
    stateOf: (r) => r.status?.state,
  },
  "v0.3": {
    send: "message/send",
    stream: "message/stream",
    get: "tasks/get",
    cancel: "tasks/cancel",
    headers: {},
    params: (text, taskId) => ({
      message: { kind: "message", messageId: randomUUID(), role: "user", parts: [{ kind: "text", text }], ...(taskId && { taskId }) },
    }),
    taskIdOf: (r) => (r.kind === "task" ? r.id : r.taskId),
    stateOf: (r) => r.status?.state,
  },
  "v1.0": {
    send: "SendMessage",
    stream: "SendStreamingMessage",
    get: "GetTask",
    cancel: "CancelTask",
    headers: { "A2A-Version": "1.0" },
    params: (text, taskId) => ({ message: { messageId: randomUUID(), role: "ROLE_USER", parts: [{ text }], ...(taskId && { taskId }) } }),
    taskIdOf: (r) => r.task?.id ?? r.statusUpdate?.taskId ?? r.artifactUpdate?.taskId ?? r.id,
    stateOf: (r) => V10_STATE((r.task ?? r.statusUpdate ?? r).status?.state),
  },
};

/** Asserts that no id the agent made for the tasks it ran since `before` appears anywhere in `received`. */
export function expectRouterIdsOnly(agent: SdkAgent, before: number, received: unknown[]): void {
  const theirs = agent.tasks.slice(before);
  expect(theirs.length).toBeGreaterThan(0);
  const json = JSON.stringify(received);
  for (const { taskId, contextId } of theirs) {
    expect(json).not.toContain(taskId);
    expect(json).not.toContain(contextId);
  }
}
