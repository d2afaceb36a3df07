/**
 * The one shape the CLI reads, whatever A2A dialect the target speaks: each dialect file (v01.ts, v03.ts,
 * v10.ts) has its dialect's translators (router/dialects/) build its requests and read its results into
 * these types, and the commands and the stream printer only ever see these. Events are the reply model's
 * (router/core/reply.ts) shape, so the printer feeds them to the reader as they are.
 */

import type { Artifact, Message, Part, TaskStatus } from "../../core/model.js";

/** The A2A dialects the CLI speaks: the router's own three. */
export type { DialectName } from "../../core/model.js";

/** Parts, statuses and artifacts are the router's own (router/core/model.ts), as the dialects translate them. */
export type CliPart = Part;
export type CliMessage = Message;
export type CliStatus = TaskStatus;
export type CliArtifact = Artifact;

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

export { isRecord } from "../../dialects/index.js";
