/**
 * BOOK_FLIGHT: elizaOS's action-parameters example. The runtime extracts origin, destination,
 * departureDate and passengerCount from the model's `<params>`, coerces and validates them (passengerCount
 * defaults to 1); the handler only ever sees valid values. It books nothing: it is a demo.
 */
import { createHash } from "node:crypto";
import type { Action } from "../../types.js";

export const bookFlightAction: Action = {
  name: "BOOK_FLIGHT",
  description: "Book a flight for the user",
  similes: ["FLIGHT", "BOOK_TRIP", "FLY"],
  tags: ["travel"],
  parameters: [
    {
      name: "origin",
      description: "Departure city or airport code",
      required: true,
      schema: { type: "string" },
      examples: ["SFO", "San Francisco", "JFK"],
    },
    { name: "destination", description: "Arrival city or airport code", required: true, schema: { type: "string" } },
    {
      name: "departureDate",
      description: "Departure date (YYYY-MM-DD)",
      required: true,
      schema: { type: "string", pattern: "^\\d{4}-\\d{2}-\\d{2}$" },
    },
    {
      name: "passengerCount",
      description: "Number of passengers",
      required: false,
      schema: { type: "number", minimum: 1, maximum: 10, default: 1 },
    },
  ],
  validate: async () => true,
  handler: async (_runtime, message, _state, options, callback) => {
    // The runtime calls an action that declares parameters only with its parameters validated.
    const { origin, destination, departureDate, passengerCount } = options!.parameters as {
      origin: string;
      destination: string;
      departureDate: string;
      passengerCount: number;
    };
    await callback?.({ text: `✈️ Looking for flights from ${origin} to ${destination} on ${departureDate}...`, source: message.content.source });
    const bookingId = `BK-${createHash("sha256").update(`${origin}|${destination}|${departureDate}|${passengerCount}`).digest("hex").slice(0, 6).toUpperCase()}`;
    const seats = passengerCount === 1 ? "1 seat" : `${passengerCount} seats`;
    const text = `✅ Booked ${seats} from ${origin} to ${destination} on ${departureDate}. Booking ${bookingId}.`;
    await callback?.({ text, source: message.content.source });
    return { success: true, text, values: { bookingId }, data: { bookingId, origin, destination, departureDate, passengerCount } };
  },
  examples: [
    [
      { name: "user", content: { text: "Book me a flight from SFO to JFK on 2025-03-15 for 2 passengers" } },
      { name: "agent", content: { text: "I'll book that flight for you.", actions: ["REPLY", "BOOK_FLIGHT"] } },
    ],
  ],
};
