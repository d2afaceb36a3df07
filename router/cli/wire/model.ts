/**
 * The one shape the CLI reads, whatever A2A dialect the target speaks: each dialect file (v01.ts, v03.ts,
 * v10.ts) builds its own requests and parses its own results into these types, and the commands and the
 * stream printer only ever see these. Events are the reply model's (router/core/reply.ts) shape, so the
 * printer feeds them to the reader as they are.
 */

import { TURN_END_STATES as CORE_TURN_END_STATES } from "../../core/model.js";

/** The A2A dialects the CLI speaks: the router's own three. */
export type { DialectName } from "../../core/model.js";

export interface CliPart {
  kind: "text" | "file" | "data" | string;
  text?: string;
  file?: { name?: string; mimeType?: string; bytes?: string; uri?: string };
  data?: unknown;
}

export interface CliMessage {
  role: "user" | "agent";
  parts: CliPart[];
}

export interface CliStatus {
  /** Lower-case A2A state names (`working`, `input-required`, ...), whatever the dialect spells. */
  state: string;
  message?: CliMessage;
}

export interface CliArtifact {
  artifactId: string;
  name?: string;
  parts: CliPart[];
}

export interface CliTask {
  /** Empty when an agent answered with a bare Message (no task). */
  id: string;
  contextId?: string;
  status: CliStatus;
  artifacts: CliArtifact[];
}

/** A stream event, as router/core/reply.ts reads it, plus the task it belongs to. */
export type CliEvent =
  | { kind: "status"; taskId?: string; status: CliStatus; final: boolean; metadata?: Record<string, unknown> }
  | {
      kind: "artifact";
      taskId?: string;
      artifact: CliArtifact;
      append: boolean;
      lastChunk: boolean;
      metadata?: Record<string, unknown>;
    };

export interface CliPushConfig {
  taskId: string;
  /** The config's id (v0.3/v1.0; v0.1 has one config per task and no id). */
  id?: string;
  url: string;
  token?: string;
}

export interface TaskPage {
  tasks: CliTask[];
  nextPageToken?: string;
  totalSize?: number;
}

/** What a message command asks for, before any dialect spells it. */
export interface SendInput {
  text: string;
  /** v0.1: the id of the task to create or continue; v0.3/v1.0: an existing task to continue. */
  taskId?: string;
  /** v0.1 sessionId, v0.3/v1.0 contextId. */
  sessionId?: string;
  metadata: Record<string, unknown>;
}

export interface ListInput {
  contextId?: string;
  state?: string;
  pageSize?: number;
  pageToken?: string;
}

/** States after which a turn is over: the stream ends and the command exits by the state (the engine's own set). */
export const TURN_END_STATES: ReadonlySet<string> = CORE_TURN_END_STATES;

/** A task snapshot (a v0.3/v1.0 stream's opening Task, a resubscribe's first answer) as events. */
export function taskEvents(task: CliTask): CliEvent[] {
  const out: CliEvent[] = task.artifacts.map((artifact) => ({
    kind: "artifact",
    taskId: task.id,
    artifact,
    append: false,
    lastChunk: true,
  }));
  out.push({ kind: "status", taskId: task.id, status: task.status, final: TURN_END_STATES.has(task.status.state) });
  return out;
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** A string member, or undefined when absent or empty (ProtoJSON writes unset strings as ""). */
export function str(value: unknown): string | undefined {
  return typeof value === "string" && value !== "" ? value : undefined;
}

export function record(value: unknown): Record<string, unknown> | undefined {
  return isRecord(value) ? value : undefined;
}
