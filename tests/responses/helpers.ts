/** What the Responses-face suites share: reading events and responses as a client sees them. */
import { expect } from "@jest/globals";
import type OpenAI from "openai";

/** The hosted Eliza agent's question for "book a flight to Paris tomorrow" (offline model, CONTRACT 14). */
export const QUESTION = "I need one more detail for BOOK_FLIGHT: what is the departure city or airport code?";

/** Tomorrow's UTC date, as the local model reads "tomorrow". */
function tomorrow(): string {
  const now = new Date();
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1)).toISOString().slice(0, 10);
}

export function expectBooked(text: string): void {
  expect(text).toContain(`Booked 1 seat from London to Paris on ${tomorrow()}. Booking BK-`);
}

export function typesOf(events: ReadonlyArray<{ type: string }>): string[] {
  return events.map((e) => e.type);
}

/** The summary lines of a response's reasoning items, in order. */
export function summaries(response: OpenAI.Responses.Response): string[] {
  return response.output.flatMap((o) => (o.type === "reasoning" ? o.summary.map((s) => s.text) : []));
}
