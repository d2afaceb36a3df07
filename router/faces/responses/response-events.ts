/**
 * One response's typed stream events (CONTRACT 15), made from its turn's logged events by a pure
 * translation over the shared turn reader: the same log always gives the same events with the same
 * `sequence_number`s, which is what makes `GET /v1/responses/{id}?stream=true&starting_after=N` exact after
 * a restart and on any instance (nothing but the task's log is read). The response object itself is the
 * translation's state after the events read so far.
 *
 * Layout: `response.created` (0); `response.in_progress` once the turn's first event is read; progress as a
 * `reasoning` output item (one summary part per line) while no answer streams; the answer as one assistant
 * `message` item with one `output_text` part; then `response.completed` | `response.failed` |
 * `response.incomplete` (a canceled turn, status `cancelled`).
 */
import type { ReplyEvent } from "../../core/reply.js";
import { TURN_ERRORS } from "../shared/openai-errors.js";
import { createTurnReader, type TurnEnd, type TurnStep } from "../shared/turn-reader.js";

/** What a response is, apart from its turn's events. */
export interface ResponseBase {
  id: string;
  /** Unix seconds. */
  createdAt: number;
  model: string;
  background: boolean;
  metadata: Record<string, string>;
  previousResponseId: string | null;
  taskId: string;
  contextId: string;
}

export type ResponseStatus = "queued" | "in_progress" | "completed" | "failed" | "cancelled";

/** One typed stream event; `sequence_number` counts from 0 per response. */
export type ResponseEvent = { type: string; sequence_number: number } & Record<string, unknown>;

export interface SummaryText {
  type: "summary_text";
  text: string;
}
export interface ReasoningItem {
  id: string;
  type: "reasoning";
  summary: SummaryText[];
}
export interface OutputText {
  type: "output_text";
  text: string;
  annotations: never[];
  logprobs: never[];
}
export interface MessageItem {
  id: string;
  type: "message";
  status: "in_progress" | "completed" | "incomplete";
  role: "assistant";
  content: OutputText[];
}
export type OutputItem = ReasoningItem | MessageItem;

/** Agents count no tokens. */
const NO_USAGE = {
  input_tokens: 0,
  input_tokens_details: { cached_tokens: 0 },
  output_tokens: 0,
  output_tokens_details: { reasoning_tokens: 0 },
  total_tokens: 0,
};

/** The status of a turn that ended in an A2A state other than completed: any other (input-required) is completed, its question the answer. */
const FINAL_STATUS: Record<string, ResponseStatus> = { failed: "failed", rejected: "failed", canceled: "cancelled" };

// What an event says of an item is the item as it was then; the item goes on changing. Copied by hand: the
// items are plain and small, and structuredClone (a serialization round trip) was most of a turn's end.
const clonePart = (p: OutputText): OutputText => ({ type: p.type, text: p.text, annotations: [], logprobs: [] });
const cloneSummary = (s: SummaryText): SummaryText => ({ type: s.type, text: s.text });
function cloneItem<T extends OutputItem>(item: T): T;
function cloneItem(item: OutputItem): OutputItem {
  if (item.type === "reasoning") return { id: item.id, type: item.type, summary: item.summary.map(cloneSummary) };
  return { id: item.id, type: item.type, status: item.status, role: item.role, content: item.content.map(clonePart) };
}

/** A translation of one response's turn; `start()` first, then `feed` each of the turn's events in log order. */
export function createResponseTranslator(base: ResponseBase) {
  const reader = createTurnReader();
  const output: OutputItem[] = [];
  let seq = 0;
  let status: ResponseStatus = base.background ? "queued" : "in_progress";
  let a2aState = "submitted";
  let error: { message: string; type: string; param: null; code: string } | null = null;
  let ended = false;
  let begun = false;
  /** The reasoning item taking lines, and its index in `output`. */
  let reasoning: { item: ReasoningItem; index: number; partOpen: boolean } | undefined;
  let message: { item: MessageItem; index: number } | undefined;
  // An item's short id: the response's own id names the turn already.
  const itemId = (kind: string) => `${kind}_${base.id.slice("resp_".length)}_${output.length}`;

  const response = () => ({
    id: base.id,
    object: "response",
    created_at: base.createdAt,
    status,
    background: base.background,
    error,
    incomplete_details: null,
    instructions: null,
    max_output_tokens: null,
    model: base.model,
    output: output.map(cloneItem),
    parallel_tool_calls: false,
    previous_response_id: base.previousResponseId,
    reasoning: null,
    store: true,
    temperature: null,
    text: { format: { type: "text" } },
    tool_choice: "auto",
    tools: [],
    top_p: null,
    truncation: "disabled",
    usage: ended ? NO_USAGE : null,
    user: null,
    metadata: { ...base.metadata, a2a_task_id: base.taskId, a2a_context_id: base.contextId, a2a_state: a2aState },
  });

  const emit = (out: ResponseEvent[], type: string, fields: Record<string, unknown>): void => {
    out.push({ type, sequence_number: seq++, ...fields });
  };

  const closeSummaryPart = (out: ResponseEvent[]): void => {
    if (!reasoning?.partOpen) return;
    const { item, index } = reasoning;
    const summaryIndex = item.summary.length - 1;
    const text = item.summary[summaryIndex]!.text;
    const at = { item_id: item.id, output_index: index, summary_index: summaryIndex };
    emit(out, "response.reasoning_summary_text.done", { ...at, text });
    emit(out, "response.reasoning_summary_part.done", { ...at, part: { type: "summary_text", text } });
    reasoning.partOpen = false;
  };

  const closeReasoning = (out: ResponseEvent[]): void => {
    if (!reasoning) return;
    closeSummaryPart(out);
    emit(out, "response.output_item.done", { output_index: reasoning.index, item: cloneItem(reasoning.item) });
    reasoning = undefined;
  };

  const addNote = (text: string, fresh: boolean, out: ResponseEvent[]): void => {
    if (!reasoning) {
      const item: ReasoningItem = { id: itemId("rs"), type: "reasoning", summary: [] };
      reasoning = { item, index: output.length, partOpen: false };
      output.push(item);
      emit(out, "response.output_item.added", { output_index: reasoning.index, item: cloneItem(item) });
    }
    const { item, index } = reasoning;
    if (fresh || !reasoning.partOpen) {
      closeSummaryPart(out);
      item.summary.push({ type: "summary_text", text: "" });
      reasoning.partOpen = true;
      emit(out, "response.reasoning_summary_part.added", {
        item_id: item.id,
        output_index: index,
        summary_index: item.summary.length - 1,
        part: { type: "summary_text", text: "" },
      });
    }
    const summaryIndex = item.summary.length - 1;
    item.summary[summaryIndex]!.text += text;
    emit(out, "response.reasoning_summary_text.delta", { item_id: item.id, output_index: index, summary_index: summaryIndex, delta: text });
  };

  const openMessage = (out: ResponseEvent[]): { item: MessageItem; index: number } => {
    if (message) return message;
    closeReasoning(out);
    const item: MessageItem = { id: itemId("msg"), type: "message", status: "in_progress", role: "assistant", content: [] };
    message = { item, index: output.length };
    output.push(item);
    emit(out, "response.output_item.added", { output_index: message.index, item: cloneItem(item) });
    item.content.push({ type: "output_text", text: "", annotations: [], logprobs: [] });
    emit(out, "response.content_part.added", { item_id: item.id, output_index: message.index, content_index: 0, part: clonePart(item.content[0]!) });
    return message;
  };

  const addAnswer = (delta: string, out: ResponseEvent[]): void => {
    if (reasoning) closeReasoning(out);
    const { item, index } = openMessage(out);
    item.content[0]!.text += delta;
    emit(out, "response.output_text.delta", { item_id: item.id, output_index: index, content_index: 0, delta, logprobs: [] });
  };

  // A snapshot line (the whole answer so far) is held until the next event: a turn whose answer it turns out
  // to be (the two-event rule of hub agents, echo) had no progress, and its answer is not repeated as
  // reasoning. Progress lines go out at once.
  let held: string | undefined;
  const flushHeld = (out: ResponseEvent[]): void => {
    if (held !== undefined) addNote(held, true, out);
    held = undefined;
  };

  const step = (s: TurnStep, out: ResponseEvent[]): void => {
    flushHeld(out);
    if (s.kind === "answer") addAnswer(s.delta, out);
    else if (s.kind === "note" && s.snapshot) held = s.text;
    else addNote(s.text, s.kind === "note", out);
  };

  /** Closes the message with `text` as its whole answer (the streamed text, unless the turn said otherwise). */
  const closeMessage = (text: string, itemStatus: MessageItem["status"], out: ResponseEvent[]): void => {
    if (!message) return;
    const { item, index } = message;
    const part = item.content[0]!;
    part.text = text;
    item.status = itemStatus;
    const at = { item_id: item.id, output_index: index, content_index: 0 };
    emit(out, "response.output_text.done", { ...at, text, logprobs: [] });
    emit(out, "response.content_part.done", { ...at, part: clonePart(part) });
    emit(out, "response.output_item.done", { output_index: index, item: cloneItem(item) });
  };

  const finish = (end: TurnEnd, out: ResponseEvent[]): void => {
    closeReasoning(out);
    a2aState = end.state;
    status = FINAL_STATUS[end.state] ?? "completed";
    if (end.error === undefined) {
      // Everything the answer has beyond what streamed goes out as its last delta; the done event names it whole.
      const { item } = openMessage(out);
      const streamed = item.content[0]!.text;
      if (end.answer.startsWith(streamed) && end.answer.length > streamed.length) addAnswer(end.answer.slice(streamed.length), out);
      closeMessage(end.answer, "completed", out);
    } else {
      if (message) closeMessage(message.item.content[0]!.text, "incomplete", out);
      if (status === "failed") {
        const { type, code } = TURN_ERRORS[end.state === "rejected" ? "rejected" : "failed"];
        error = { message: end.error, type, param: null, code };
      }
    }
    ended = true;
    const type = status === "completed" ? "response.completed" : status === "failed" ? "response.failed" : "response.incomplete";
    emit(out, type, { response: response() });
  };

  return {
    /** The events every response opens with. */
    start(): ResponseEvent[] {
      const out: ResponseEvent[] = [];
      emit(out, "response.created", { response: response() });
      return out;
    },
    /** The events one of the turn's events adds (none once the turn ended), pushed to `out` (a batch's). */
    feed(event: ReplyEvent, out: ResponseEvent[] = []): ResponseEvent[] {
      if (ended) return out;
      if (!begun) {
        begun = true;
        status = "in_progress";
        emit(out, "response.in_progress", { response: response() });
      }
      if (event.kind === "status") a2aState = event.status.state;
      const { steps, end } = reader.feed(event);
      if (end && end.error === undefined && held !== undefined && end.answer.includes(held)) held = undefined;
      for (const s of steps) step(s, out);
      if (end) {
        flushHeld(out);
        finish(end, out);
      }
      return out;
    },
    /** The response as it stands. */
    response,
    get ended(): boolean {
      return ended;
    },
  };
}

/** A response object, as `GET /v1/responses/{id}` answers it. */
export type ResponseObject = ReturnType<ReturnType<typeof createResponseTranslator>["response"]>;
