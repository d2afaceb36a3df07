import type { Dialect, Operation } from "../../dialects/index.js";
import type { PushNotificationConfig } from "../../core/model.js";
import type { CliEvent, CliPushConfig, CliTask, DialectName, ListInput, SendInput, TaskPage } from "./model.js";

/** A JSON-RPC call to make: method and params (the dialect's headers go with every call, see WireDialect). */
export interface WireCall {
  method: string;
  params: unknown;
}

/**
 * The client side of one A2A dialect, as the CLI needs it: builds each request, parses each result into
 * the CLI's own shapes (model.ts). One file per dialect, each made of its dialect's method names and
 * translators (router/dialects/); a dialect without an operation leaves it out and the command says so.
 */
export interface WireDialect {
  readonly name: DialectName;
  /** Sent with every request (v1.0 servers read a request without `A2A-Version` as 0.3). */
  readonly headers: Readonly<Record<string, string>>;
  /** Whether the client names new tasks (v0.1); v0.3/v1.0 agents make their own ids. */
  readonly clientNamesTasks: boolean;

  send(input: SendInput): WireCall;
  stream(input: SendInput): WireCall;
  resubscribe(taskId: string): WireCall;
  get(taskId: string): WireCall;
  cancel(taskId: string): WireCall;
  list?(input: ListInput): WireCall;
  pushSet(config: CliPushConfig): WireCall;
  pushGet(taskId: string, configId?: string): WireCall;
  pushList?(taskId: string): WireCall;
  pushDelete?(taskId: string, configId: string): WireCall;

  /** A send's result (a Task, or a bare Message in v0.3/v1.0) as a task. */
  parseSendResult(result: unknown): CliTask;
  /** A get/cancel result. */
  parseTask(result: unknown): CliTask;
  /** One stream event's `result` as the events it stands for (an opening Task stands for several). */
  parseEvent(result: unknown): CliEvent[];
  parseList?(result: unknown): TaskPage;
  parsePush(result: unknown): CliPushConfig;
  parsePushList?(result: unknown): CliPushConfig[];
}

/** Thrown by a parser when the target's answer is not in the dialect's shape; says which field is wrong. */
export class WireError extends Error {
  constructor(dialect: DialectName, issue: string) {
    super(`the target's answer is not A2A ${dialect}: ${issue}`);
    this.name = "WireError";
  }
}

/**
 * The calls of `dialect`: the method that does an operation (the first the dialect lists, where it has
 * aliases) with its params.
 */
export function callsOf(dialect: Dialect): (op: Operation, params: unknown) => WireCall {
  return (op, params) => {
    const found = Object.entries(dialect.methods).find(([, o]) => o === op);
    if (!found) throw new Error(`A2A ${dialect.name} has no method for ${op}`);
    return { method: found[0], params };
  };
}

/** The push config a command asks to set, as the dialect's PushNotificationConfig. */
export function pushConfigOf(c: CliPushConfig): PushNotificationConfig {
  return { url: c.url, ...(c.id !== undefined && { id: c.id }), ...(c.token !== undefined && { token: c.token }) };
}

/** The calls every dialect makes alike: a send or a stream of one message, and resubscribe, get, cancel by `id`. */
export function taskCalls(
  dialect: Dialect,
  sendParams: (input: SendInput) => unknown,
): Pick<WireDialect, "send" | "stream" | "resubscribe" | "get" | "cancel"> {
  const call = callsOf(dialect);
  return {
    send: (input) => call("SendMessage", sendParams(input)),
    stream: (input) => call("SendStreamingMessage", sendParams(input)),
    resubscribe: (id) => call("SubscribeToTask", { id }),
    get: (id) => call("GetTask", { id }),
    cancel: (id) => call("CancelTask", { id }),
  };
}
