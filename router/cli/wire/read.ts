import type { AgentUpdate, Artifact, TaskStatus } from "../../core/model.js";
import { resultSchemaId, type ResultKind } from "../../dialects/index.js";
import { SchemaRegistry } from "../../schema/validator.js";
import { WireError } from "./dialect.js";
import { type CliEvent, type CliTask, type DialectName, TURN_END_STATES } from "./model.js";

/**
 * How the CLI reads an answer: checked against its dialect's result schema (the one the router reads its
 * upstream agents' answers with, schemas/a2a-results.schema.json), then translated by the dialect's own
 * translators (router/dialects/). Nothing here knows a wire shape.
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
