/**
 * The router's one internal task model. Every dialect (v0.1, v0.3, v1.0) and every agent transport
 * (hosted, HTTP, WebSocket hub) is translated to and from these shapes at the edge; the engine,
 * the stores and the fan-out only ever see them.
 *
 * Shapes follow A2A v0.3 naming (`kind` discriminators, `contextId`) because it is the richest of the
 * three dialects; v0.1 and v1.0 are lossless enough renderings of it for everything the router carries.
 */

export type TaskState = "submitted" | "working" | "input-required" | "completed" | "canceled" | "failed" | "rejected" | "auth-required" | "unknown";

/** Every state a task can be in. */
export const TASK_STATES: ReadonlySet<TaskState> = new Set([
  "submitted",
  "working",
  "input-required",
  "completed",
  "canceled",
  "failed",
  "rejected",
  "auth-required",
  "unknown",
]);

/** States after which a task takes no more events. `input-required` ends a turn, not the task. */
export const TERMINAL_STATES: ReadonlySet<TaskState> = new Set(["completed", "canceled", "failed", "rejected"]);
/** States that end a turn: a stream closes and tasks/send answers on these. */
export const TURN_END_STATES: ReadonlySet<TaskState> = new Set(["completed", "canceled", "failed", "rejected", "input-required", "auth-required"]);

export type Metadata = Record<string, unknown>;

/**
 * What the text of a status message is to the turn's answer (CONTRACT section 9), carried in the status
 * event's metadata under `textKind`: `delta` extends the answer, `snapshot` is the whole visible answer now,
 * `progress` is a status line shown apart from the answer and replaced by the next one.
 */
export type TextKind = "delta" | "snapshot" | "progress";
/** The metadata key of a status update's TextKind. */
export const TEXT_KIND_KEY = "textKind";
/**
 * Metadata key (value `true`) of a turn-ending status whose agent answered with a bare Message rather than a
 * task of its own (hub protocol 2); it stays on the completed task, whose send dialects that can answer with a
 * Message (v0.3, v1.0) answer with that message.
 */
export const MESSAGE_ANSWER_KEY = "messageAnswer";
/**
 * Metadata key (value `true`) of a turn-ending `rejected` status whose agent refused the request with an error
 * (hub protocol 2): a blocking send answers with that error instead of the task.
 */
export const REJECTION_KEY = "agentRejected";

export interface TextPart {
  kind: "text";
  text: string;
  metadata?: Metadata;
}
export interface FileContent {
  name?: string;
  mimeType?: string;
  bytes?: string;
  uri?: string;
}
export interface FilePart {
  kind: "file";
  file: FileContent;
  metadata?: Metadata;
}
export interface DataPart {
  kind: "data";
  data: Record<string, unknown>;
  metadata?: Metadata;
}
export type Part = TextPart | FilePart | DataPart;

export interface Message {
  role: "user" | "agent";
  parts: Part[];
  messageId?: string;
  taskId?: string;
  contextId?: string;
  /** Tasks the sender refers to (v0.3/v1.0); carried to agents that take them (upstream, hub protocol 2). */
  referenceTaskIds?: string[];
  /** Extension URIs the message uses (v0.3/v1.0). */
  extensions?: string[];
  metadata?: Metadata;
}

export interface TaskStatus {
  state: TaskState;
  message?: Message;
  timestamp?: string;
}

export interface Artifact {
  /** v0.3/v1.0 identity; v0.1 agents are given `artifact-<index>`. */
  artifactId: string;
  name?: string;
  description?: string;
  parts: Part[];
  /** v0.1 position; kept so v0.1 clients see the index the agent used. */
  index?: number;
  metadata?: Metadata;
}

/** The dialect a task was created in; tasks/get|cancel|resubscribe answer in it (CONTRACT section 3). */
export type DialectName = "v0.1" | "v0.3" | "v1.0";

export interface Task {
  id: string;
  contextId: string;
  agentId: string;
  dialect: DialectName;
  status: TaskStatus;
  artifacts: Artifact[];
  history: Message[];
  metadata: Metadata;
  createdAt: string;
  updatedAt: string;
  /** seq of the last logged event (0 = none yet). */
  lastSeq: number;
  /** The principal of the API key that created the task; only it sees the task (CONTRACT 12). */
  owner?: string;
}

/** What an agent reports while it works; the engine turns each into one logged TaskEvent. */
export type AgentUpdate = StatusUpdate | ArtifactUpdate;

export interface StatusUpdate {
  kind: "status";
  status: TaskStatus;
  /** The agent says this ends its turn; derived from the state when absent. */
  final?: boolean;
  metadata?: Metadata;
}

export interface ArtifactUpdate {
  kind: "artifact";
  artifact: Artifact;
  append?: boolean;
  lastChunk?: boolean;
  metadata?: Metadata;
}

/** One entry of a task's ordered log. `seq` counts from 1 per task with no gaps. */
export type TaskEvent = (StatusUpdate & { final: boolean }) | (ArtifactUpdate & { final?: false });
export type LoggedEvent = TaskEvent & { taskId: string; contextId: string; seq: number };
/**
 * An event on its way to a stream: a logged one (with its seq), or one the router made up that is not in the
 * log (no seq, so no SSE id): a resubscribe's snapshot, or the failure of a task whose updates could not be stored.
 */
export type StreamEvent = LoggedEvent | (TaskEvent & { taskId: string; contextId: string; seq?: undefined });

/** Incoming work: what a client asked, after its dialect was translated away. */
export interface SendRequest {
  /** Set for v0.1 (client-chosen) and for follow-ups; generated otherwise. */
  taskId?: string;
  contextId?: string;
  message: Message;
  metadata: Metadata;
  /** Agent selected by path, or `metadata.agent`, or the default. */
  agentId?: string;
  historyLength?: number;
  pushNotification?: PushNotificationConfig;
  /** The creating caller's principal, set by the task service (never by a client). */
  owner?: string;
}

export interface PushNotificationConfig {
  id?: string;
  url: string;
  token?: string;
  authentication?: { schemes: string[]; credentials?: string };
}

export function isTerminal(state: TaskState): boolean {
  return TERMINAL_STATES.has(state);
}

export function textOf(message: Message | undefined): string {
  if (!message) return "";
  let out = "";
  for (const p of message.parts) if (p.kind === "text") out += p.text;
  return out;
}

export function agentText(text: string): Message {
  return { role: "agent", parts: [{ kind: "text", text }] };
}
