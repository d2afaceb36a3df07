/**
 * A turn's events as AI SDK UI message stream parts (protocol v1), pure (no I/O), over the shared reply
 * reader: the answer as text parts, the status line as ONE `data-status` part per task (a stable `id`,
 * so `useChat` replaces it in place), artifacts that are not the answer as `data-artifact` parts (one per
 * artifact, replaced as it grows), a failed turn as an `error` part, then `finish`. A turn that ends waiting for
 * the user (`input-required`) has the question as its answer, a status part saying so (WAITING_LABELS), and
 * `finish` carrying `messageMetadata.state`.
 *
 * An answer the agent rewrites (`answer-reset`) cannot be edited in place on this protocol: the text part
 * streamed so far is closed and a new text part holds the whole new answer, so the message's LAST text part
 * is always the turn's answer.
 */
import type { StreamEvent } from "../../core/model.js";
import { appendParts, createReplyReader, WAITING_LABELS, type ReplyChange, type ReplyPart } from "../../core/reply.js";

/** One UI message stream part, as written after `data: `. */
export type UiChunk = { type: string } & Record<string, unknown>;

/** Which turn the parts describe. */
export interface UiTurn {
  taskId: string;
  contextId: string;
  agentId: string;
  /** The seq after which the turn's events are logged: with the task id, the turn's stable message id. */
  fromSeq: number;
}

export interface UiChunkOptions {
  /** Also send every A2A event as a transient `data-a2a-event` part (the chat page renders from these). */
  rawEvents?: boolean;
}

/** The `data-status` part's payload. */
export interface StatusData {
  taskId: string;
  state: string;
  text: string;
  textKind?: "progress" | "snapshot";
}

/** A UI chunk reader for one turn: `start()` first, then `feed()` each event in log order. */
export function createUiChunkReader(turn: UiTurn, opts: UiChunkOptions = {}) {
  const reader = createReplyReader();
  const statusId = `status-${turn.taskId}`;
  let status: StatusData = { taskId: turn.taskId, state: "submitted", text: "" };
  let textId: string | undefined;
  let textParts = 0;
  const artifacts = new Map<string, { name?: string; parts: ReplyPart[]; lastChunk: boolean; answer: boolean }>();

  const statusChunk = (): UiChunk => ({ type: "data-status", id: statusId, data: status });

  const openText = (out: UiChunk[]): string => {
    if (textId === undefined) {
      textId = `text-${turn.taskId}-${turn.fromSeq}-${textParts++}`;
      out.push({ type: "text-start", id: textId });
    }
    return textId;
  };
  const artifactChunk = (artifactId: string): UiChunk => {
    const a = artifacts.get(artifactId)!;
    return {
      type: "data-artifact",
      id: `artifact-${turn.taskId}-${artifactId}`,
      data: { taskId: turn.taskId, artifactId, ...(a.name !== undefined && { name: a.name }), parts: a.parts, lastChunk: a.lastChunk },
    };
  };

  const closeText = (out: UiChunk[]): void => {
    if (textId !== undefined) out.push({ type: "text-end", id: textId });
    textId = undefined;
  };

  const step = (change: ReplyChange, event: StreamEvent, out: UiChunk[]): void => {
    switch (change.type) {
      case "answer":
        out.push({ type: "text-delta", id: openText(out), delta: change.delta });
        return;
      case "answer-reset":
        closeText(out);
        out.push({ type: "text-delta", id: openText(out), delta: change.text });
        // Text artifacts streamed as the answer turned out not to be it: they are shown as artifacts now.
        for (const [id, a] of artifacts) {
          if (!a.answer) continue;
          a.answer = false;
          out.push(artifactChunk(id));
        }
        return;
      case "status":
        status = { taskId: turn.taskId, state: event.kind === "status" ? event.status.state : status.state, text: change.text, textKind: change.textKind };
        out.push(statusChunk());
        return;
      case "artifact": {
        const before = artifacts.get(change.artifactId);
        const parts = change.append && before ? appendParts(before.parts, change.parts) : [...change.parts];
        artifacts.set(change.artifactId, { name: change.name ?? before?.name, parts, lastChunk: change.lastChunk, answer: change.answer });
        if (!change.answer) out.push(artifactChunk(change.artifactId));
        return;
      }
      case "end": {
        closeText(out);
        // A task waiting for the user: the answer is the question; the status line says what it waits for.
        const waiting = WAITING_LABELS[change.state];
        status = waiting === undefined ? { ...status, state: change.state } : { taskId: turn.taskId, state: change.state, text: waiting };
        out.push(statusChunk());
        if (change.error !== undefined) out.push({ type: "error", errorText: change.error });
        const finish: UiChunk = { type: "finish", finishReason: change.error !== undefined ? "error" : "stop" };
        // useChat merges it into the message's metadata: `metadata.state` tells the UI the next message answers.
        if (waiting !== undefined) finish.messageMetadata = { state: change.state };
        out.push(finish);
        return;
      }
    }
  };

  return {
    /** The parts that open the message: `start` (metadata: the task) and the task's status part. */
    start(): UiChunk[] {
      return [
        {
          type: "start",
          messageId: `${turn.taskId}:${turn.fromSeq}`,
          messageMetadata: { taskId: turn.taskId, contextId: turn.contextId, agent: turn.agentId },
        },
        statusChunk(),
      ];
    },
    feed(event: StreamEvent): UiChunk[] {
      const out: UiChunk[] = [];
      if (opts.rawEvents) out.push({ type: "data-a2a-event", data: event, transient: true });
      for (const change of reader.feed(event)) step(change, event, out);
      return out;
    },
    get ended(): boolean {
      return reader.ended;
    },
  };
}
