import type { DialectName } from "../../core/model.js";

/**
 * What an A2A server answers, as its client reads it (the router of its upstream agents, the CLI of its
 * targets): one schema per dialect and kind of answer, in schemas/a2a-results.schema.json. A result is
 * checked against it before the dialect's translator reads it, so a malformed answer is refused naming
 * its field instead of reaching a translator that trusts its shape.
 */
export type ResultKind =
  /** A blocking send's result: a Task (v0.1), a Task or a Message (v0.3, v1.0's SendMessageResponse). */
  | "send"
  /** One stream event (a streaming send's, a resubscribe's). */
  | "event"
  /** A get or cancel result. */
  | "task"
  | "task-list"
  | "push"
  | "push-list";

const SCHEMA_FILE_ID = "results";

/** The dialects' answers that have no schema here (v0.1 lists nothing) are not asked for by any client. */
const KINDS: Readonly<Record<DialectName, ReadonlySet<ResultKind>>> = {
  "v0.1": new Set(["send", "event", "task", "push"]),
  "v0.3": new Set(["send", "event", "task", "task-list", "push", "push-list"]),
  "v1.0": new Set(["send", "event", "task", "task-list", "push", "push-list"]),
};

/** The schema `$id` ref of `dialect`'s `kind` of answer (v0.1's send result is its Task). */
export function resultSchemaId(dialect: DialectName, kind: ResultKind): string {
  if (!KINDS[dialect].has(kind)) throw new Error(`A2A ${dialect} has no ${kind} answer`);
  const name = dialect === "v0.1" && kind === "send" ? "task" : kind;
  return `${SCHEMA_FILE_ID}#/$defs/${dialect}-${name}`;
}
