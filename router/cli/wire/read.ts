import { randomUUID } from "node:crypto";
import { TURN_END_STATES, type AgentUpdate, type Artifact, type Message, type PushNotificationConfig, type TaskStatus } from "../../core/model.js";
import { resultSchemaId, type Dialect, type ResultKind } from "../../dialects/index.js";
import { SchemaRegistry } from "../../schema/validator.js";
import { WireError } from "./dialect.js";
import type { CliEvent, CliPushConfig, CliTask, DialectName, SendInput } from "./model.js";

/**
 * How the CLI reads an answer: checked against its dialect's result schema (the one the router reads its
 * upstream agents' answers with, schemas/a2a-results.schema.json), then translated by the dialect's own
 * translators (router/dialects/); and what a send says, before a dialect spells it. Nothing here knows a
 * wire shape.
 */

/** Compiled on the first answer read: commands that read none (card, agents) do not pay for it. */
let schemas: SchemaRegistry | undefined;

/** `result`, once it is `dialect`'s `kind` of answer (an object unless a list); else a WireError naming the field. */
export function checked<T = Record<string, unknown>>(dialect: DialectName, kind: ResultKind, result: unknown): T {
  schemas ??= new SchemaRegistry();
  const issue = schemas.check(resultSchemaId(dialect, kind), result, "the answer");
  if (issue) throw new WireError(dialect, issue.message);
  return result as T;
}

/** A task as the commands read it. */
export function cliTask(id: unknown, contextId: unknown, status: TaskStatus, artifacts: Artifact[]): CliTask {
  return {
    id: typeof id === "string" ? id : "",
    ...(typeof contextId === "string" && contextId !== "" && { contextId }),
    status,
    artifacts,
  };
}

/** A completed exchange without a task: an agent that answered a send with a bare Message. */
export function answeredTask(updates: AgentUpdate[], taskId: unknown): CliTask {
  const status = updates.find((u) => u.kind === "status");
  return cliTask(taskId, undefined, status?.kind === "status" ? status.status : { state: "completed" }, []);
}

/** Internal updates as stream events: a status ends the turn when it says so or its state does. */
export function cliEvents(updates: AgentUpdate[], taskId: unknown): CliEvent[] {
  const id = typeof taskId === "string" && taskId !== "" ? { taskId } : {};
  return updates.map((u): CliEvent =>
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

/** A push config answer (a TaskPushNotificationConfig), read by the dialect's own reader of that shape. */
export function readPush(dialect: Dialect, result: unknown): CliPushConfig {
  const ref = dialect.toPushRef(checked(dialect.name, "push", result));
  return cliPushConfig(ref.taskId, ref.config);
}

/** A push config as the CLI prints it. */
export function cliPushConfig(taskId: string, config: PushNotificationConfig | undefined): CliPushConfig {
  return {
    taskId,
    url: config?.url ?? "",
    ...(config?.id !== undefined && { id: config.id }),
    ...(config?.token !== undefined && { token: config.token }),
  };
}

/** The message a send carries, in the router's terms; `messageId` new for each send (v0.3/v1.0 require one). */
export function userMessage(input: SendInput): Message {
  return {
    role: "user",
    parts: [{ kind: "text", text: input.text }],
    messageId: randomUUID(),
    ...(input.taskId !== undefined && { taskId: input.taskId }),
    ...(input.sessionId !== undefined && { contextId: input.sessionId }),
  };
}
