/**
 * One `tools/call` as MCP sees it, read from its task's events with the one reply reader (CONTRACT 9): the
 * status lines that become progress notifications, the end of each turn, and the tool result. Pure: the
 * live call and a resumed stream (re-derived from the log) feed it the same events and get the same messages.
 */
import type { CallToolResult, ContentBlock } from "@modelcontextprotocol/sdk/types.js";
import type { Part, StreamEvent } from "../../core/model.js";
import { appendParts, createReplyReader, partsText, type ReplyPart, type ReplyReader } from "../../core/reply.js";

/** What one event means to the call: a status line to report, or the end of a turn. */
export type CallStep =
  | { type: "progress"; seq: number; text: string }
  | { type: "end"; seq: number; state: string; answer: string; error?: string; metadata: Record<string, unknown> };

/** The ids a result names. */
export interface CallIds {
  taskId: string;
  contextId: string;
}

interface KeptArtifact {
  name?: string;
  parts: ReplyPart[];
}

/** Reads one call's events (every turn of it, in log order) and renders its result. */
export class CallRenderer {
  #reader: ReplyReader = createReplyReader();
  /** Artifacts that are not the answer, by id, in arrival order, chunks joined. */
  #artifacts = new Map<string, KeptArtifact>();
  /** The last turn's end, and whether its answer is the text of its artifacts (then they are not repeated). */
  #end: Extract<CallStep, { type: "end" }> | undefined;
  #answerFromArtifacts = false;

  /** The step an event makes, if any. A turn that ended and was continued starts a new turn's reading. */
  feed(event: StreamEvent): CallStep | undefined {
    if (this.#reader.ended) this.#reader = createReplyReader();
    let step: CallStep | undefined;
    for (const change of this.#reader.feed(event)) {
      if (change.type === "status" && event.seq !== undefined) step = { type: "progress", seq: event.seq, text: change.text };
      else if (change.type === "artifact" && !change.answer) this.#keep(change.artifactId, change.name, change.parts, change.append);
      else if (change.type === "end") {
        const finalText = event.kind === "status" ? partsText(event.status.message?.parts) : "";
        this.#answerFromArtifacts = finalText === "" && change.error === undefined && change.answer !== "" && this.#artifactText() === change.answer;
        this.#end = {
          type: "end",
          seq: event.seq ?? 0,
          state: change.state,
          answer: change.answer,
          ...(change.error !== undefined && { error: change.error }),
          metadata: event.metadata ?? {},
        };
        step = this.#end;
      }
    }
    return step;
  }

  /** The result of the call as it stands (after the end of a turn: that turn's answer). */
  result(ids: CallIds): CallToolResult {
    const end = this.#end;
    const state = end?.state ?? "working";
    const content: ContentBlock[] = [];
    const lead = end?.error ?? end?.answer ?? "";
    if (lead !== "") content.push({ type: "text", text: lead });
    for (const [id, artifact] of this.#artifacts) {
      const textual = artifact.parts.every((p) => p.kind === "text");
      if (textual && this.#answerFromArtifacts) continue;
      content.push(...artifactContent(id, artifact));
    }
    if (content.length === 0) content.push({ type: "text", text: "" });
    return {
      content,
      structuredContent: { taskId: ids.taskId, contextId: ids.contextId, state },
      ...(end?.error !== undefined && { isError: true }),
    };
  }

  #keep(id: string, name: string | undefined, parts: ReplyPart[], append: boolean): void {
    const before = this.#artifacts.get(id);
    this.#artifacts.set(id, {
      ...(name !== undefined ? { name } : before?.name !== undefined && { name: before.name }),
      parts: append && before ? appendParts(before.parts, parts) : [...parts],
    });
  }

  #artifactText(): string {
    let text = "";
    for (const a of this.#artifacts.values()) if (a.parts.every((p) => p.kind === "text")) text += partsText(a.parts);
    return text;
  }
}

/** An artifact's parts as MCP content: text as text, data as JSON text, files as resource links. */
function artifactContent(id: string, artifact: KeptArtifact): ContentBlock[] {
  const out: ContentBlock[] = [];
  for (const raw of artifact.parts) {
    const part = raw as Part;
    if (part.kind === "text") out.push({ type: "text", text: part.text });
    else if (part.kind === "data") out.push({ type: "text", text: JSON.stringify(part.data) });
    else if (part.kind === "file") {
      const { file } = part;
      const mimeType = file.mimeType ?? "application/octet-stream";
      const uri = file.uri ?? `data:${mimeType};base64,${file.bytes ?? ""}`;
      out.push({ type: "resource_link", uri, name: file.name ?? artifact.name ?? id, mimeType });
    }
  }
  return out;
}
