import type { ClientCall } from "../../client/call.js";
import type { Artifact, DialectName, Message, Metadata, TaskStatus } from "../../core/model.js";
import type { UpstreamBinding } from "./card-endpoint.js";

/**
 * The client side of one A2A dialect over one binding: what to send for each operation (method names,
 * params shape, headers; paths for HTTP+JSON) and how to read each answer (checked against the result
 * schema the router reads its upstream agents with, schemas/a2a-results.schema.json, then translated by
 * the dialect's own translators). One per dialect folder (v01/codec.ts, v03/codec.ts, v10/codec.ts,
 * v10/rest-codec.ts); the transport (router/client) moves the calls. The router's upstream connector
 * builds its turns and cancels with these; the CLI all of its commands.
 */
export interface ClientCodec {
  readonly dialect: DialectName;
  readonly binding: UpstreamBinding;
  /** Whether the client names new tasks (v0.1); v0.3/v1.0 agents make their own ids. */
  readonly clientNamesTasks: boolean;

  /**
   * A send of `message` (its `taskId` and `contextId` name the task and context it continues, or, in
   * v0.1, the task it creates), blocking or streaming. The call waits for the turn: v0.3 asks for
   * `blocking`, v1.0 says `returnImmediately: false`.
   */
  send(message: Message, metadata: Metadata, streaming: boolean): ClientCall;
  resubscribe(taskId: string): ClientCall;
  get(taskId: string): ClientCall;
  cancel(taskId: string): ClientCall;
  /** ListTasks (v1.0 only). */
  list?(input: ListInput): ClientCall;
  pushSet(config: ClientPushConfig): ClientCall;
  pushGet(taskId: string, configId?: string): ClientCall;
  pushList?(taskId: string): ClientCall;
  pushDelete?(taskId: string, configId: string): ClientCall;

  /** A send's result (a Task, or a bare Message in v0.3/v1.0) as a task. */
  readSend(result: unknown): ClientTask;
  /** A get or cancel result. */
  readTask(result: unknown): ClientTask;
  /** One stream event's result as the events it stands for (an opening Task stands for several). */
  readEvent(result: unknown): ClientEvent[];
  readList?(result: unknown): TaskPage;
  readPush(result: unknown): ClientPushConfig;
  readPushList?(result: unknown): ClientPushConfig[];
}

/** A task as a client reads it, whatever the dialect. */
export interface ClientTask {
  /** Empty when an agent answered with a bare Message (no task). */
  id: string;
  contextId?: string;
  status: TaskStatus;
  artifacts: Artifact[];
}

/** A stream event as router/core/reply.ts reads it, plus the task it belongs to. */
export type ClientEvent =
  | { kind: "status"; taskId?: string; status: TaskStatus; final: boolean; metadata?: Record<string, unknown> }
  | {
      kind: "artifact";
      taskId?: string;
      artifact: Artifact;
      append: boolean;
      lastChunk: boolean;
      metadata?: Record<string, unknown>;
    };

export interface ClientPushConfig {
  taskId: string;
  /** The config's id (v0.3/v1.0; v0.1 has one config per task and no id). */
  id?: string;
  url: string;
  token?: string;
}

export interface TaskPage {
  tasks: ClientTask[];
  nextPageToken?: string;
  totalSize?: number;
}

export interface ListInput {
  contextId?: string;
  state?: string;
  pageSize?: number;
  pageToken?: string;
}

/** An answer that is not in its dialect's shape: says which field is wrong. */
export class AnswerNotInDialect extends Error {
  override name = "AnswerNotInDialect";
  constructor(
    readonly dialect: DialectName,
    readonly issue: string,
  ) {
    super(`the target's answer is not A2A ${dialect}: ${issue}`);
  }
}
