/**
 * The JSON text of a Responses stream event, written by hand for the events a progress line or an answer delta
 * makes (four, or one, per A2A event): JSON.stringify walked each event's object, and its part's, to write the
 * same few keys every time, and quoted a line's text three times (its delta, then its part's two done events).
 * Byte for byte what JSON.stringify writes (tests/responses/translator.test.ts compares the two); any other
 * event goes to JSON.stringify. The keys are the translator's (response-events.ts), in its order: the test pins
 * every event it makes to JSON.stringify's text, so a key added there fails it here.
 */
import type { ResponseEvent } from "./response-events.js";

// The last texts quoted: a line's text is quoted for its delta, then again for its part's two done events.
let lastRaw: string | undefined;
let lastQuoted = "";
let lastRaw2: string | undefined;
let lastQuoted2 = "";
function quote(s: string): string {
  if (s === "") return '""';
  if (s === lastRaw) return lastQuoted;
  if (s === lastRaw2) return lastQuoted2;
  const q = JSON.stringify(s);
  lastRaw2 = lastRaw;
  lastQuoted2 = lastQuoted;
  lastRaw = s;
  lastQuoted = q;
  return q;
}

// An item's id, quoted once for all the events of its item (apart from the texts: it would push them out).
let lastId: string | undefined;
let lastIdQuoted = "";
function quoteId(id: string): string {
  if (id !== lastId) {
    lastId = id;
    lastIdQuoted = JSON.stringify(id);
  }
  return lastIdQuoted;
}

const isSummaryPart = (p: unknown): p is { type: "summary_text"; text: string } =>
  typeof p === "object" && p !== null && (p as { type?: unknown }).type === "summary_text" && typeof (p as { text?: unknown }).text === "string";

/** The JSON text of one event, as JSON.stringify(event) writes it. */
export function responseEventJson(e: ResponseEvent): string {
  const { item_id: id, output_index: at } = e;
  if (typeof id !== "string" || typeof at !== "number" || !Number.isSafeInteger(at)) return JSON.stringify(e);
  const head = `{"type":"${e.type}","sequence_number":${e.sequence_number},"item_id":${quoteId(id)},"output_index":${at},`;
  switch (e.type) {
    case "response.reasoning_summary_text.delta":
      if (Number.isSafeInteger(e.summary_index) && typeof e.delta === "string") {
        return `${head}"summary_index":${e.summary_index},"delta":${quote(e.delta)}}`;
      }
      break;
    case "response.reasoning_summary_text.done":
      if (Number.isSafeInteger(e.summary_index) && typeof e.text === "string") {
        return `${head}"summary_index":${e.summary_index},"text":${quote(e.text)}}`;
      }
      break;
    case "response.reasoning_summary_part.added":
    case "response.reasoning_summary_part.done":
      if (Number.isSafeInteger(e.summary_index) && isSummaryPart(e.part)) {
        return `${head}"summary_index":${e.summary_index},"part":{"type":"summary_text","text":${quote(e.part.text)}}}`;
      }
      break;
    case "response.output_text.delta":
      if (e.content_index === 0 && typeof e.delta === "string" && Array.isArray(e.logprobs) && e.logprobs.length === 0) {
        return `${head}"content_index":0,"delta":${quote(e.delta)},"logprobs":[]}`;
      }
      break;
  }
  return JSON.stringify(e);
}
