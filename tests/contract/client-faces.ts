import { randomUUID } from "node:crypto";
import { openStream, rpc, SseStream, type Json } from "../helpers/rpc.js";

/** One event of a stream as every face reduces it: its SSE id, and the state when it is a status. */
export interface FaceEvent {
  seq?: number;
  state?: string;
  final: boolean;
}

/**
 * A client face under the shared round-trip suite: the same operations, each in its own wire. Every method
 * answers in plain terms so one suite can assert them all.
 */
export interface ClientFace {
  name: string;
  /** A blocking send; the finished task's id, state and final text. */
  send(agent: string, text: string): Promise<{ taskId: string; state: string; text: string }>;
  /** A streaming send, read to its end. */
  stream(agent: string, text: string): Promise<{ taskId: string; events: FaceEvent[] }>;
  /** A streaming send left open after its first event (the caller reads or drops it). */
  open(agent: string, text: string): Promise<{ taskId: string; stream: SseStream }>;
  resubscribe(agent: string, taskId: string, lastEventId: number): Promise<FaceEvent[]>;
  get(agent: string, taskId: string): Promise<{ state: string }>;
  cancel(agent: string, taskId: string): Promise<{ state: string }>;
  /** ListTasks, where the face has it: the ids of one context's tasks. */
  list?(agent: string, contextId: string): Promise<string[]>;
  /** The error an unknown task id gets, as a face-independent reason. */
  missing(agent: string): Promise<"task-not-found" | string>;
}

const V10_STATE: Record<string, string> = {
  TASK_STATE_SUBMITTED: "submitted",
  TASK_STATE_WORKING: "working",
  TASK_STATE_COMPLETED: "completed",
  TASK_STATE_CANCELED: "canceled",
  TASK_STATE_FAILED: "failed",
  TASK_STATE_INPUT_REQUIRED: "input-required",
};
const v10State = (s: string | undefined) => (s === undefined ? undefined : (V10_STATE[s] ?? s));
const textOf = (parts: Json[] | undefined) => (parts ?? []).map((p) => p.text ?? "").join("");
const seqOf = (id: string | undefined) => (id === undefined ? undefined : Number(id));

async function readAll(stream: SseStream, reduce: (data: Json) => Omit<FaceEvent, "seq">): Promise<FaceEvent[]> {
  return (await stream.all()).map((e) => ({ seq: seqOf(e.id), ...reduce(e.data) }));
}

/** v0.1 (tasks/*) and v0.3 (message/*) share their result shapes closely enough for one reducer. */
function legacyEvent(data: Json): Omit<FaceEvent, "seq"> {
  const r = data.result ?? {};
  return { ...(r.status && { state: r.status.state }), final: r.final === true };
}

function unwrap(body: Json): Json {
  if (body.error) throw Object.assign(new Error(body.error.message), { code: body.error.code });
  return body.result;
}

function rpcMissing(code: number): string {
  return code === -32001 ? "task-not-found" : `code ${code}`;
}

/** A JSON-RPC face of one dialect, on `/agents/{agent}`. */
export function jsonRpcFace(url: string, dialect: "v0.1" | "v0.3" | "v1.0"): ClientFace {
  const headers: Record<string, string> = dialect === "v1.0" ? { "a2a-version": "1.0" } : {};
  const path = (agent: string) => `/agents/${agent}`;
  const call = async (agent: string, method: string, params: unknown) => unwrap(await rpc(url, method, params, { path: path(agent), headers }));
  const m = {
    "v0.1": { send: "tasks/send", stream: "tasks/sendSubscribe", get: "tasks/get", cancel: "tasks/cancel", resub: "tasks/resubscribe" },
    "v0.3": { send: "message/send", stream: "message/stream", get: "tasks/get", cancel: "tasks/cancel", resub: "tasks/resubscribe" },
    "v1.0": { send: "SendMessage", stream: "SendStreamingMessage", get: "GetTask", cancel: "CancelTask", resub: "SubscribeToTask" },
  }[dialect];
  const sendParams = (text: string) =>
    dialect === "v0.1"
      ? { id: randomUUID(), message: { role: "user", parts: [{ type: "text", text }] } }
      : dialect === "v0.3"
        ? { message: { kind: "message", messageId: randomUUID(), role: "user", parts: [{ kind: "text", text }] } }
        : { message: { messageId: randomUUID(), role: "ROLE_USER", parts: [{ text }] } };
  const taskRef = (taskId: string) => (dialect === "v0.3" || dialect === "v0.1" ? { id: taskId } : { id: taskId });
  const reduce = dialect === "v1.0" ? v10Event : legacyEvent;
  const taskOf = (r: Json) => (dialect === "v1.0" ? r.task : r);
  const stateOf = (t: Json) => (dialect === "v1.0" ? v10State(t.status?.state)! : t.status?.state);
  const openTask = async (agent: string, text: string) => {
    const stream = await openStream(url, m.stream, sendParams(text), { path: path(agent), headers });
    const first = await stream.next();
    const r = first!.data.result;
    const taskId = dialect === "v1.0" ? r.task.id : (r.taskId ?? r.id);
    return { taskId: taskId as string, stream, first: { seq: seqOf(first!.id), ...reduce(first!.data) } };
  };
  return {
    name: `JSON-RPC ${dialect}`,
    async send(agent, text) {
      const t = taskOf(await call(agent, m.send, sendParams(text)));
      return { taskId: t.id, state: stateOf(t), text: textOf(t.status?.message?.parts) };
    },
    async stream(agent, text) {
      const { taskId, stream, first } = await openTask(agent, text);
      return { taskId, events: [first, ...(await readAll(stream, reduce))] };
    },
    open: async (agent, text) => openTask(agent, text),
    async resubscribe(agent, taskId, lastEventId) {
      const stream = await openStream(url, m.resub, taskRef(taskId), { path: path(agent), headers: { ...headers, "last-event-id": String(lastEventId) } });
      return readAll(stream, reduce);
    },
    get: async (agent, taskId) => ({ state: stateOf(await call(agent, m.get, taskRef(taskId))) }),
    cancel: async (agent, taskId) => ({ state: stateOf(await call(agent, m.cancel, taskRef(taskId))) }),
    ...(dialect === "v1.0" && {
      list: async (agent: string, contextId: string) => ((await call(agent, "ListTasks", { contextId })).tasks as Json[]).map((t) => t.id as string),
    }),
    async missing(agent) {
      const body = await rpc(url, m.get, taskRef("no-such-task"), { path: path(agent), headers });
      return rpcMissing(body.error?.code);
    },
  };
}

function v10Event(data: Json): Omit<FaceEvent, "seq"> {
  const r = data.result ?? data;
  if (r.task) return { state: v10State(r.task.status?.state), final: false };
  if (r.statusUpdate) {
    const state = v10State(r.statusUpdate.status?.state)!;
    return { state, final: ["completed", "canceled", "failed", "input-required"].includes(state) };
  }
  return { final: false };
}

/** The v1.0 HTTP+JSON face, on `/agents/{agent}/rest`. */
export function restFace(url: string): ClientFace {
  const base = (agent: string) => `${url}/agents/${agent}/rest`;
  const json = async (res: Response) => {
    const body = (await res.json()) as Json;
    if (!res.ok) throw Object.assign(new Error(body.error?.message), { status: res.status, reason: body.error?.details?.[0]?.reason });
    return body;
  };
  const post = (u: string, body?: unknown) =>
    fetch(u, { method: "POST", headers: { "content-type": "application/json" }, ...(body !== undefined && { body: JSON.stringify(body) }) });
  const sse = async (u: string, body: unknown, headers: Record<string, string> = {}) => {
    const controller = new AbortController();
    const res = await fetch(u, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "text/event-stream", ...headers },
      body: JSON.stringify(body),
      signal: controller.signal,
    });
    return new SseStream(res, controller);
  };
  const message = (text: string) => ({ message: { messageId: randomUUID(), role: "ROLE_USER", parts: [{ text }] } });
  const openTask = async (agent: string, text: string) => {
    const stream = await sse(`${base(agent)}/message:stream`, message(text));
    const first = await stream.next();
    return { taskId: first!.data.task.id as string, stream, first: { seq: seqOf(first!.id), ...v10Event(first!.data) } };
  };
  return {
    name: "HTTP+JSON v1.0",
    async send(agent, text) {
      const { task } = await json(await post(`${base(agent)}/message:send`, message(text)));
      return { taskId: task.id, state: v10State(task.status.state)!, text: textOf(task.status.message?.parts) };
    },
    async stream(agent, text) {
      const { taskId, stream, first } = await openTask(agent, text);
      return { taskId, events: [first, ...(await readAll(stream, v10Event))] };
    },
    open: async (agent, text) => openTask(agent, text),
    async resubscribe(agent, taskId, lastEventId) {
      return readAll(await sse(`${base(agent)}/tasks/${taskId}:subscribe`, {}, { "last-event-id": String(lastEventId) }), v10Event);
    },
    get: async (agent, taskId) => ({ state: v10State((await json(await fetch(`${base(agent)}/tasks/${taskId}`))).status.state)! }),
    cancel: async (agent, taskId) => ({ state: v10State((await json(await post(`${base(agent)}/tasks/${taskId}:cancel`))).status.state)! }),
    list: async (agent, contextId) => ((await json(await fetch(`${base(agent)}/tasks?contextId=${contextId}`))).tasks as Json[]).map((t) => t.id as string),
    async missing(agent) {
      const res = await fetch(`${base(agent)}/tasks/no-such-task`);
      const body = (await res.json()) as Json;
      return res.status === 404 && body.error?.details?.[0]?.reason === "TASK_NOT_FOUND" ? "task-not-found" : `HTTP ${res.status}`;
    },
  };
}
