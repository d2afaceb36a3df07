import { expect, test } from "@jest/globals";
import { newId } from "../../router/core/ids.js";

test("new ids are version 7 UUIDs carrying the time they were made, and ids made later sort later", () => {
  const before = Date.now();
  const ids = Array.from({ length: 2000 }, () => newId());
  const after = Date.now();
  for (const id of ids) expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  const ms = Number.parseInt(ids[0]!.replace("-", "").slice(0, 12), 16);
  expect(ms).toBeGreaterThanOrEqual(before);
  expect(ms).toBeLessThanOrEqual(after);
  // Within one millisecond too (2,000 ids take several): the store's indexes on them grow only at their end.
  expect([...ids].sort()).toEqual(ids);
  expect(new Set(ids).size).toBe(ids.length);
});
