/** The A2A v0.1 shapes the CLI reads (docs/contract.md section 3). */

export interface V01Part {
  type: string;
  text?: string;
  file?: { name?: string; mimeType?: string; bytes?: string; uri?: string };
  data?: unknown;
  metadata?: Record<string, unknown>;
}

export interface V01Message {
  role: "user" | "agent";
  parts: V01Part[];
  metadata?: Record<string, unknown>;
}

export interface V01Status {
  state: string;
  message?: V01Message;
  timestamp?: string;
}

export interface V01Artifact {
  name?: string;
  description?: string;
  parts: V01Part[];
  index?: number;
  append?: boolean;
  lastChunk?: boolean;
  metadata?: Record<string, unknown>;
}

export interface V01Task {
  id: string;
  sessionId?: string;
  status: V01Status;
  artifacts?: V01Artifact[];
  history?: V01Message[];
  metadata?: Record<string, unknown>;
}

/** A stream event's `result`: a TaskStatusUpdateEvent or a TaskArtifactUpdateEvent. */
export interface V01Event {
  id: string;
  status?: V01Status;
  artifact?: V01Artifact;
  final?: boolean;
  metadata?: Record<string, unknown>;
}

export interface AgentListing {
  id: string;
  name?: string;
  transport?: string;
  online?: boolean;
  card?: { description?: string; skills?: Array<{ id?: string; name?: string }> };
}

export const V01_METHODS = {
  SEND: "tasks/send",
  SEND_SUBSCRIBE: "tasks/sendSubscribe",
  RESUBSCRIBE: "tasks/resubscribe",
  GET: "tasks/get",
  CANCEL: "tasks/cancel",
} as const;

export function partsText(parts: V01Part[] | undefined): string {
  let out = "";
  for (const part of parts ?? []) if (part.type === "text" && typeof part.text === "string") out += part.text;
  return out;
}

/** A one-line description of a non-text part (files and data are not dumped on a terminal). */
export function describePart(part: V01Part): string | undefined {
  if (part.type === "file") {
    const f = part.file ?? {};
    const size = f.bytes ? `, ${Math.floor((f.bytes.length * 3) / 4)} bytes` : "";
    return `[file ${f.name ?? f.uri ?? "(unnamed)"}${f.mimeType ? ` ${f.mimeType}` : ""}${size}]`;
  }
  if (part.type === "data") return `[data ${JSON.stringify(part.data)}]`;
  return undefined;
}
