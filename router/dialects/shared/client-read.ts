import type { ClientCall } from "../../client/call.js";
import { TURN_END_STATES, type AgentUpdate, type Artifact, type DialectName, type PushNotificationConfig, type TaskStatus } from "../../core/model.js";
import { SchemaRegistry } from "../../schema/validator.js";
import { AnswerNotInDialect, type ClientEvent, type ClientPushConfig, type ClientTask } from "./client-codec.js";
import type { Dialect, Operation } from "./dialect.js";
import { resultSchemaId, type ResultKind } from "./result-schemas.js";
import type { UpstreamIds } from "./upstream-protocol.js";

/**
 * What the codecs share: the method of an operation, and reading an answer (checked against its result
 * schema, then put in the client's shapes). Nothing here knows a wire shape.
 */

/** Compiled on the first answer read: a client that reads none (a card lookup) does not pay for it. */
let schemas: SchemaRegistry | undefined;

/** `result`, once it is `dialect`'s `kind` of answer (an object unless a list); else AnswerNotInDialect naming the field. */
export function checked<T = Record<string, unknown>>(dialect: DialectName, kind: ResultKind, result: unknown): T {
  schemas ??= new SchemaRegistry();
  const issue = schemas.check(resultSchemaId(dialect, kind), result, "the answer");
  if (issue) throw new AnswerNotInDialect(dialect, issue.message);
  return result as T;
}

/**
 * The JSON-RPC calls of `dialect`: the method that does an operation (the first its server side lists,
 * where it has aliases) with its params and the dialect's headers.
 */
export function callsOf(dialect: Dialect, headers?: Record<string, string>): (op: Operation, params: unknown) => ClientCall {
  return (op, params) => {
    const found = Object.entries(dialect.methods).find(([, o]) => o === op);
    if (!found) throw new Error(`A2A ${dialect.name} has no method for ${op}`);
    // A fresh object per call: callers may add to a call's headers.
    return { method: found[0], params, ...(headers && { headers: { ...headers } }) };
  };
}

/** The push config a client asks to set, as the dialect's PushNotificationConfig. */
export function pushConfigOf(c: ClientPushConfig): PushNotificationConfig {
  return { url: c.url, ...(c.id !== undefined && { id: c.id }), ...(c.token !== undefined && { token: c.token }) };
}

/** A task as a client reads it. */
export function clientTask(id: unknown, contextId: unknown, status: TaskStatus, artifacts: Artifact[]): ClientTask {
  return {
    id: typeof id === "string" ? id : "",
    ...(typeof contextId === "string" && contextId !== "" && { contextId }),
    status,
    artifacts,
  };
}

/** A completed exchange without a task: an agent that answered a send with a bare Message. */
export function answeredTask(updates: AgentUpdate[], taskId: unknown): ClientTask {
  const status = updates.find((u) => u.kind === "status");
  return clientTask(taskId, undefined, status?.kind === "status" ? status.status : { state: "completed" }, []);
}

/** Internal updates as stream events: a status ends the turn when it says so or its state does. */
export function clientEvents(updates: AgentUpdate[], taskId: unknown): ClientEvent[] {
  const id = typeof taskId === "string" && taskId !== "" ? { taskId } : {};
  return updates.map(
    (u): ClientEvent =>
      u.kind === "status"
        ? {
            kind: "status",
            ...id,
            status: u.status,
            final: u.final === true || TURN_END_STATES.has(u.status.state),
            ...(u.metadata && { metadata: u.metadata }),
          }
        : {
            kind: "artifact",
            ...id,
            artifact: u.artifact,
            append: u.append === true,
            lastChunk: u.lastChunk !== false,
            ...(u.metadata && { metadata: u.metadata }),
          },
  );
}

/** The task and context ids a result names, as far as they are ids (non-empty strings). */
export function idsOf(taskId: unknown, contextId: unknown): UpstreamIds {
  const isId = (v: unknown): v is string => typeof v === "string" && v !== "";
  return { ...(isId(taskId) && { taskId }), ...(isId(contextId) && { contextId }) };
}

/** A push config answer (a TaskPushNotificationConfig), read by the dialect's own reader of that shape. */
export function readPush(dialect: Dialect, result: unknown): ClientPushConfig {
  const ref = dialect.toPushRef(checked(dialect.name, "push", result));
  return clientPushConfig(ref.taskId, ref.config);
}

/** A push config as a client shows it. */
export function clientPushConfig(taskId: string, config: PushNotificationConfig | undefined): ClientPushConfig {
  return {
    taskId,
    url: config?.url ?? "",
    ...(config?.id !== undefined && { id: config.id }),
    ...(config?.token !== undefined && { token: config.token }),
  };
}
