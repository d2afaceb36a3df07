/**
 * The Redis store's sets of each task owner's tasks (`tasks:owner:<owner>`: the API-key principal a task belongs to,
 * not the router holding the store, redis-owner.ts), which its commit script keeps: filling them once
 * for the tasks routers before them stored.
 */
import type { Redis } from "ioredis";
import type { Task } from "../core/model.js";

/** Marks a store whose every task with an owner is in its owner's set. */
const FILLED = "tasks:owner-indexed";

/**
 * Puts the tasks routers before the owner sets stored into them, once per store (FILLED marks it done), `chunk`
 * tasks per round trip; `key` makes the store's key names (RedisStore's, prefix included). Safe beside routers
 * committing: ZADD GT keeps a newer score a commit wrote, and ZSCAN returns every task present throughout (a
 * task's owner never changes). A task a router of an earlier version commits meanwhile, or later, is in no owner
 * set: the routers of one store are upgraded together.
 */
export async function fillOwnerSets(redis: Redis, key: (...parts: string[]) => string, chunk: number): Promise<void> {
  if ((await redis.exists(key(FILLED))) === 1) return;
  let cursor = "0";
  do {
    const [next, flat] = await redis.zscan(key("tasks"), cursor, "COUNT", chunk);
    // ZSCAN answers member, score, member, score...
    const ids = flat.filter((_, i) => i % 2 === 0);
    const jsons = ids.length > 0 ? await redis.mget(ids.map((id) => key("task", id))) : [];
    const adds = redis.pipeline();
    jsons.forEach((json, i) => {
      const owner = json === null ? undefined : parseTask(json, ids[i]!).owner;
      if (owner !== undefined) adds.zadd(key("tasks:owner", owner), "GT", flat[2 * i + 1]!, ids[i]!);
    });
    const failed = adds.length > 0 ? (await adds.exec())?.find(([err]) => err) : undefined;
    if (failed) throw failed[0];
    cursor = next;
  } while (cursor !== "0");
  await redis.set(key(FILLED), "1");
}

function parseTask(json: string, id: string): Task {
  try {
    return JSON.parse(json) as Task;
  } catch {
    // JSON.parse's own text names positions of a JavaScript parser; the operator needs the key.
    throw new Error(`task:${id} does not hold a task's JSON`);
  }
}
