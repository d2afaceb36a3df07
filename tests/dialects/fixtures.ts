import type { LoggedEvent, Task } from "../../router/core/model.js";
import type { OutboundEvent } from "../../router/dialects/index.js";

/** Internal shapes the dialect tests render: one finished task and one event of each kind. */

export function sampleTask(overrides: Partial<Task> = {}): Task {
  return {
    id: "task-1",
    contextId: "ctx-1",
    agentId: "echo",
    dialect: "v0.3",
    status: {
      state: "completed",
      message: { role: "agent", parts: [{ kind: "text", text: "done" }] },
      timestamp: "2025-01-01T00:00:02.000Z",
    },
    artifacts: [
      {
        artifactId: "a-1",
        name: "reply",
        parts: [
          { kind: "text", text: "hello" },
          { kind: "file", file: { bytes: "aGk=", name: "hi.txt", mimeType: "text/plain" } },
          { kind: "file", file: { uri: "https://example.com/x.png", mimeType: "image/png" } },
          { kind: "data", data: { n: 1 } },
        ],
      },
    ],
    history: [
      { role: "user", messageId: "m-1", parts: [{ kind: "text", text: "hi" }], taskId: "task-1", contextId: "ctx-1" },
      { role: "agent", parts: [{ kind: "text", text: "done" }], taskId: "task-1", contextId: "ctx-1" },
    ],
    metadata: { skill: "echo" },
    createdAt: "2025-01-01T00:00:00.000Z",
    updatedAt: "2025-01-01T00:00:02.000Z",
    lastSeq: 3,
    ...overrides,
  };
}

export const workingEvent: LoggedEvent = {
  kind: "status",
  status: { state: "working", message: { role: "agent", parts: [{ kind: "text", text: "thinking" }] }, timestamp: "2025-01-01T00:00:01.000Z" },
  final: false,
  metadata: { fullText: "thinking" },
  taskId: "task-1",
  contextId: "ctx-1",
  seq: 1,
};

export const artifactEvent: LoggedEvent = {
  kind: "artifact",
  artifact: { artifactId: "a-1", parts: [{ kind: "text", text: "hel" }] },
  append: true,
  lastChunk: false,
  taskId: "task-1",
  contextId: "ctx-1",
  seq: 2,
};

export const completedEvent: LoggedEvent = {
  kind: "status",
  status: { state: "completed", timestamp: "2025-01-01T00:00:02.000Z" },
  final: true,
  taskId: "task-1",
  contextId: "ctx-1",
  seq: 3,
};

export const inputRequiredEvent: LoggedEvent = {
  kind: "status",
  status: { state: "input-required", message: { role: "agent", parts: [{ kind: "text", text: "which one?" }] } },
  final: true,
  taskId: "task-1",
  contextId: "ctx-1",
  seq: 3,
};

/** A resubscribe snapshot: not in the log, so no seq. */
export const snapshotEvent: OutboundEvent = {
  kind: "status",
  status: { state: "working" },
  final: false,
  taskId: "task-1",
  contextId: "ctx-1",
};
