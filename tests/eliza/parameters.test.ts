import { describe, expect, test } from "@jest/globals";
import { compileParameters, toJsonSchema } from "../../agents/eliza/parameters.js";
import { bookFlightAction } from "../../agents/eliza/plugins/example/book-flight.js";
import { findParameters } from "../../agents/eliza/models/local-parameters.js";
import type { Action } from "../../agents/eliza/types.js";

const action = (parameters: Action["parameters"]): Action => ({
  name: "TEST",
  description: "t",
  validate: async () => true,
  handler: async () => ({ success: true }),
  parameters,
});

describe("parameters: coercion, defaults, validation", () => {
  const check = compileParameters(bookFlightAction);

  test("coerces the model's strings and fills defaults", () => {
    expect(check({ origin: "SFO", destination: "JFK", departureDate: "2025-03-15", passengerCount: "2" })).toEqual({
      ok: true,
      parameters: { origin: "SFO", destination: "JFK", departureDate: "2025-03-15", passengerCount: 2 },
    });
    expect(check({ origin: "SFO", destination: "JFK", departureDate: "2025-03-15" })).toEqual({
      ok: true,
      parameters: { origin: "SFO", destination: "JFK", departureDate: "2025-03-15", passengerCount: 1 },
    });
  });

  test("an empty element counts as absent (so the default applies)", () => {
    const out = check({ origin: "SFO", destination: "JFK", departureDate: "2025-03-15", passengerCount: "" });
    expect(out).toEqual({ ok: true, parameters: expect.objectContaining({ passengerCount: 1 }) });
  });

  test("parameter names match case-insensitively", () => {
    const out = check({ ORIGIN: "SFO", destination: "JFK", departuredate: "2025-03-15" });
    expect(out.ok).toBe(true);
  });

  test("a missing required parameter is a clear error naming it, with what was given (to ask for the rest)", () => {
    expect(check({ destination: "JFK", departureDate: "2025-03-15" })).toEqual({
      ok: false,
      error: 'BOOK_FLIGHT: missing required parameter "origin"',
      missing: ["origin"],
      parameters: { destination: "JFK", departureDate: "2025-03-15", passengerCount: 1 },
    });
    expect(check(undefined)).toEqual({
      ok: false,
      error: 'BOOK_FLIGHT: missing required parameter "origin"; missing required parameter "destination"; missing required parameter "departureDate"',
      missing: ["origin", "destination", "departureDate"],
      parameters: { passengerCount: 1 },
    });
  });

  test("an answer's parameters are merged into the earlier ones; an invalid one is a failure, not a question", () => {
    const validate = compileParameters(bookFlightAction);
    expect(validate({ origin: "London" }, { destination: "Paris", departureDate: "2026-11-28", passengerCount: 1 })).toEqual({
      ok: true,
      parameters: { origin: "London", destination: "Paris", departureDate: "2026-11-28", passengerCount: 1 },
    });
    expect(validate({ passengerCount: "20" }, { destination: "Paris" })).toEqual({
      ok: false,
      error: 'BOOK_FLIGHT: missing required parameter "origin"; missing required parameter "departureDate"; parameter "passengerCount" must be <= 10',
    });
  });

  test("invalid values are clear errors naming the parameter and the rule", () => {
    expect(check({ origin: "SFO", destination: "JFK", departureDate: "March 15", passengerCount: "2" })).toEqual({
      ok: false,
      error: 'BOOK_FLIGHT: parameter "departureDate" must match pattern "^\\d{4}-\\d{2}-\\d{2}$"',
    });
    expect(check({ origin: "SFO", destination: "JFK", departureDate: "2025-03-15", passengerCount: "twelve" })).toEqual({
      ok: false,
      error: 'BOOK_FLIGHT: parameter "passengerCount" must be number',
    });
    expect(check({ origin: "SFO", destination: "JFK", departureDate: "2025-03-15", passengerCount: "11" })).toEqual({
      ok: false,
      error: 'BOOK_FLIGHT: parameter "passengerCount" must be <= 10',
    });
  });

  test("enum (and elizaOS's enumValues), booleans, arrays and objects", () => {
    const check2 = compileParameters(
      action([
        { name: "platform", description: "p", schema: { type: "string", enumValues: ["telegram", "discord"], default: "telegram" } },
        { name: "loud", description: "l", schema: { type: "boolean" } },
        { name: "tags", description: "t", schema: { type: "array", items: { type: "string" } } },
        { name: "ids", description: "i", schema: { type: "array", items: { type: "number" } } },
        { name: "where", description: "w", schema: { type: "object", properties: { lat: { type: "number" } } } },
      ]),
    );
    expect(check2({ loud: "true", tags: "a, b", ids: "[1, 2]", where: { lat: "1.5" } })).toEqual({
      ok: true,
      parameters: { platform: "telegram", loud: true, tags: ["a", "b"], ids: [1, 2], where: { lat: 1.5 } },
    });
    expect(check2({ platform: "irc" })).toEqual({
      ok: false,
      error: 'TEST: parameter "platform" must be one of "telegram", "discord"',
    });
    expect(check2({ where: '{"lat": "north"}' })).toEqual({ ok: false, error: 'TEST: parameter "where.lat" must be number' });
  });

  test("an invalid parameter schema is refused at registration, naming the action and parameter", () => {
    expect(() => compileParameters(action([{ name: "n", description: "d", schema: { type: "strnig" as "string" } }]))).toThrow(
      /^action TEST: parameter "n" has an invalid schema: /,
    );
    expect(() => compileParameters(action([{ name: "n", description: "d" } as never]))).toThrow('action TEST: parameter "n" has no schema');
  });

  test("toJsonSchema maps enumValues to enum, recursively", () => {
    expect(toJsonSchema({ type: "array", items: { type: "string", enumValues: ["a"] } })).toEqual({
      type: "array",
      items: { type: "string", enum: ["a"] },
    });
  });
});

describe("local model parameter heuristics", () => {
  test("finds BOOK_FLIGHT's parameters in a plain sentence", () => {
    expect(findParameters(bookFlightAction.parameters!, "Book me a flight from San Francisco to New York on 2025-03-15 for 2 passengers")).toEqual({
      origin: "San Francisco",
      destination: "New York",
      departureDate: "2025-03-15",
      passengerCount: "2",
    });
  });

  test("explicit name=value wins; what is not found is left out", () => {
    expect(findParameters(bookFlightAction.parameters!, "flight origin=LHR, destination: CDG")).toEqual({ origin: "LHR", destination: "CDG" });
  });
});
