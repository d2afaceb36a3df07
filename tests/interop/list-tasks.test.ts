import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, test } from "@jest/globals";
import { Redis } from "ioredis";
import type { RunningRouter } from "../../router/index.js";
import { RPC_ERROR_CODES } from "../../router/rpc/errors.js";
import { SchemaRegistry } from "../../router/schema/validator.js";
import { RedisStore } from "../../router/store/index.js";
import { post, rpc, type Json } from "../helpers/rpc.js";
import { testRouter } from "../helpers/router.js";
import { until } from "./helpers.js";

/**
 * v1.0 ListTasks on the raw wire against a real router, once per store: cursor paging over tasks that share
 * one updatedAt millisecond, totalSize over all pages, and the error a bad pageToken gets.
 */

const REDIS_URL = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";
const REDIS_PREFIX = `a2a-router-test:list-tasks:${randomUUID()}:`;
const V10 = { "A2A-Version": "1.0" };
const ECHO = "/agents/echo";
const schemas = new SchemaRegistry();

/** Deletes every key the Redis run wrote. */
async function deleteRedisKeys(): Promise<void> {
  const redis = new Redis(REDIS_URL);
  try {
    let cursor = "0";
    do {
      const [next, keys] = await redis.scan(cursor, "MATCH", `${REDIS_PREFIX}*`, "COUNT", 500);
      if (keys.length) await redis.del(...keys);
      cursor = next;
    } while (cursor !== "0");
  } finally {
    await redis.quit();
  }
}

const stores: Array<[string, () => Promise<string | RedisStore>]> = [
  ["memory", async () => "memory"],
  ["sqlite", async () => "sqlite::memory:"],
  [
    "redis",
    async () => {
      const store = new RedisStore(REDIS_URL, { prefix: REDIS_PREFIX });
      await store.connect();
      return store;
    },
  ],
];

afterAll(deleteRedisKeys);

describe.each(stores)("ListTasks over the wire (%s store)", (_name, openStore) => {
  let router: RunningRouter;

  beforeAll(async () => {
    router = await testRouter({ store: await openStore(), eliza: false });
  });

  afterAll(async () => {
    await router.close();
  });

  const listTasks = (params: Json): Promise<Json> => rpc(router.url, "ListTasks", params, { path: ECHO, headers: V10 });

  /** Sends `n` SendMessage requests to the echo agent as ONE JSON-RPC batch, all in one context; their task ids. */
  async function sendBatch(n: number, contextId: string): Promise<string[]> {
    const batch = Array.from({ length: n }, (_, i) => ({
      jsonrpc: "2.0",
      id: i,
      method: "SendMessage",
      params: { message: { messageId: `${contextId}-${randomUUID()}`, contextId, role: "ROLE_USER", parts: [{ text: `task ${i}` }] } },
    }));
    const res = await post(router.url + ECHO, JSON.stringify(batch), V10);
    expect(res.status).toBe(200);
    expect(res.body).toHaveLength(n);
    return (res.body as Json[]).map((r) => {
      expect(r.result.task.status.state).toBe("TASK_STATE_COMPLETED");
      return r.result.task.id as string;
    });
  }

  /** Every page of a listing, following nextPageToken until it is empty. */
  async function allPages(params: Json): Promise<Json[]> {
    const pages: Json[] = [];
    let pageToken = "";
    do {
      const res = await listTasks({ ...params, pageToken });
      expect(res.error).toBeUndefined();
      expect(schemas.check("v1.0#/$defs/ListTasksResponse", res.result)).toBeUndefined();
      pages.push(res.result);
      pageToken = res.result.nextPageToken;
      // A token that never runs out would loop forever; 20 tasks by 3 is 7 pages.
    } while (pageToken !== "" && pages.length < 50);
    return pages;
  }

  test("20 tasks sent in one batch, paged 3 at a time: each exactly once, totalSize 20, last token empty", async () => {
    const contextId = `ctx-${randomUUID()}`;
    const sent = await sendBatch(20, contextId);
    expect(new Set(sent).size).toBe(20);

    const pages = await allPages({ contextId, pageSize: 3 });
    expect(pages.map((p) => p.tasks.length)).toEqual([3, 3, 3, 3, 3, 3, 2]);
    for (const page of pages) expect(page).toMatchObject({ pageSize: 3, totalSize: 20 });
    expect(pages.slice(0, -1).every((p) => p.nextPageToken !== "")).toBe(true);
    expect(pages.at(-1)!.nextPageToken).toBe("");

    const listed: Json[] = pages.flatMap((p) => p.tasks);
    expect(listed.map((t) => t.id).sort()).toEqual([...sent].sort());
  });

  test("totalSize counts the matches over all pages, with the filters applied; an empty listing has no token", async () => {
    const contextId = `ctx-${randomUUID()}`;
    await sendBatch(4, contextId);
    const completed = await listTasks({ contextId, status: "TASK_STATE_COMPLETED", pageSize: 1 });
    expect(completed.result).toMatchObject({ pageSize: 1, totalSize: 4 });
    expect(completed.result.tasks).toHaveLength(1);
    expect(completed.result.nextPageToken).not.toBe("");
    const working = await listTasks({ contextId, status: "TASK_STATE_WORKING" });
    expect(working.result).toEqual({ tasks: [], nextPageToken: "", pageSize: 50, totalSize: 0 });
    const exact = await listTasks({ contextId, pageSize: 4 });
    expect(exact.result).toMatchObject({ totalSize: 4, nextPageToken: "" });
    expect(exact.result.tasks).toHaveLength(4);
  });

  test("a pageToken the server did not issue is -32602 naming pageToken", async () => {
    const contextId = `ctx-${randomUUID()}`;
    await sendBatch(2, contextId);
    const first = await listTasks({ contextId, pageSize: 1 });
    const token: string = first.result.nextPageToken;
    expect(token).toMatch(/^[A-Za-z0-9_-]+$/);
    const b64 = (value: unknown): string => Buffer.from(JSON.stringify(value)).toString("base64url");
    const bad = [
      "not a token!",
      "2025-01-01T00:00:00.000Z", // the old format: a bare time
      token + "*",
      b64({ updatedAt: "2025-01-01T00:00:00.000Z", id: "x" }),
      b64(["yesterday", "x"]),
      b64(["2025-01-01T00:00:00.000Z", 7]),
    ];
    for (const pageToken of bad) {
      const res = await listTasks({ contextId, pageSize: 1, pageToken });
      expect(res.result).toBeUndefined();
      // ListTasks is v1.0: the field is named in an ErrorInfo, in the data array.
      expect(res.error).toMatchObject({ code: RPC_ERROR_CODES.INVALID_PARAMS, data: [{ reason: "INVALID_PARAMS", metadata: { field: "pageToken" } }] });
    }
    const second = await listTasks({ contextId, pageSize: 1, pageToken: token });
    expect(second.result).toMatchObject({ nextPageToken: "", totalSize: 2 });
    expect(second.result.tasks[0].id).not.toBe(first.result.tasks[0].id);
  });

  test("statusTimestampAfter keeps the tasks whose status changed at or after it; a bad time is -32602", async () => {
    const contextId = `ctx-${randomUUID()}`;
    await sendBatch(2, contextId);
    const statusTimes = async (): Promise<number[]> => ((await listTasks({ contextId })).result.tasks as Json[]).map((t) => Date.parse(t.status.timestamp));
    const firstDone = Math.max(...(await statusTimes()));
    // The clock must move on so the next batch's status times are later than the first's.
    await until(() => Date.now() > firstDone, "the clock to pass the first batch");
    const later = await sendBatch(3, contextId);
    const since = new Date(firstDone + 1).toISOString();

    const res = await listTasks({ contextId, statusTimestampAfter: since });
    expect(res.result).toMatchObject({ totalSize: 3, nextPageToken: "" });
    expect((res.result.tasks as Json[]).map((t) => t.id).sort()).toEqual([...later].sort());
    // Inclusive: the first batch's latest status time itself lists that task too.
    const inclusive = await listTasks({ contextId, statusTimestampAfter: new Date(firstDone).toISOString() });
    expect(inclusive.result.totalSize).toBeGreaterThanOrEqual(4);
    const paged = await listTasks({ contextId, statusTimestampAfter: since, pageSize: 2 });
    expect(paged.result).toMatchObject({ totalSize: 3, pageSize: 2 });
    expect(paged.result.tasks).toHaveLength(2);

    const bad = await listTasks({ contextId, statusTimestampAfter: "yesterday" });
    expect(bad.error).toMatchObject({ code: RPC_ERROR_CODES.INVALID_PARAMS });
    expect(JSON.stringify(bad.error.data)).toContain("statusTimestampAfter");
  });
});
