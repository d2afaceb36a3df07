import { afterAll, beforeAll, expect, test } from "@jest/globals";
import type { RunningRouter } from "../../router/index.js";
import { newId } from "../../router/core/ids.js";
import { testRouter } from "../helpers/router.js";
import { rpc } from "../helpers/rpc.js";

const V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

let router: RunningRouter;
beforeAll(async () => {
  router = await testRouter();
});
afterAll(async () => {
  await router.close();
});

test("new ids are version 7 UUIDs carrying the time they were made, and ids made later sort later", () => {
  const before = Date.now();
  const ids = Array.from({ length: 2000 }, () => newId());
  const after = Date.now();
  for (const id of ids) expect(id).toMatch(V7);
  const ms = Number.parseInt(ids[0]!.replace("-", "").slice(0, 12), 16);
  expect(ms).toBeGreaterThanOrEqual(before);
  expect(ms).toBeLessThanOrEqual(after);
  // Within one millisecond too (2,000 ids take several): the store's indexes on them grow only at their end.
  expect([...ids].sort()).toEqual(ids);
  expect(new Set(ids).size).toBe(ids.length);
});

test("the tasks and contexts the router names are such ids, in the order it made them", async () => {
  const send = (text: string) =>
    rpc(router.url, "message/send", {
      message: { kind: "message", messageId: newId(), role: "user", parts: [{ kind: "text", text }] },
      configuration: { blocking: true },
    });
  const tasks = [];
  for (const text of ["one", "two", "three"]) tasks.push((await send(text)).result);
  for (const t of tasks) {
    expect(t.id).toMatch(V7);
    expect(t.contextId).toMatch(V7);
  }
  expect(tasks.map((t) => t.id)).toEqual(tasks.map((t) => t.id).sort());
  expect(tasks.map((t) => t.contextId)).toEqual(tasks.map((t) => t.contextId).sort());
});
