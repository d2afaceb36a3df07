import type { CliEvent, CliPushConfig, CliTask, DialectName, ListInput, SendInput, TaskPage } from "./model.js";

/** A JSON-RPC call to make: method, params, and the headers the dialect needs (v1.0: `A2A-Version`). */
export interface WireCall {
  method: string;
  params: unknown;
}

/**
 * The client side of one A2A dialect, as the CLI needs it: builds each request, parses each result into
 * the CLI's own shapes (model.ts). One file per dialect; a dialect without an operation leaves it out
 * and the command says so.
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

/** Thrown by a parser when the agent's answer is not in the dialect's shape. */
export class WireError extends Error {
  constructor(dialect: DialectName, what: string) {
    super(`the agent's answer is not an A2A ${dialect} ${what}`);
    this.name = "WireError";
  }
}
