/**
 * A full garbage collection once the router is quiet after large request bodies (CONTRACT 12, issue 32:
 * memory returned once the bytes in flight are answered).
 *
 * A large body's text lives as long as its request (the task holds it while the agent runs), so V8 moves it to
 * its large-object space, which only a full collection frees. An idle router makes none: after six 10 MiB
 * echoes, 70-120 MiB of dead strings stayed in the heap for as long as measured (40 s and more), RSS with them
 * (docs/benchmarks.md, "Large bodies"). Once no large request has run for `quietMs`, one collection returns it.
 *
 * It needs V8's `gc()`, which the router's launch flags expose (router/node-flags.ts); started without them,
 * it does nothing. A collection pauses the event loop for about as long as the live heap takes to mark (a few
 * ms for a router at rest, tens with thousands of streams open), so it runs only after bodies that left that
 * much garbage (`minOwedBytes`), never while a large request runs, and at most once per `minIntervalMs`.
 */
import type { NextFunction, Request, Response } from "express";

export interface IdleCollectionOptions {
  /** A body this large (its Content-Length) or larger counts; default 1 MiB. */
  minBodyBytes?: number;
  /** Bytes of counted bodies answered since the last collection that make one worth it; default 8 MiB. */
  minOwedBytes?: number;
  /** How long no counted request may have run before the collection; default 1 s. */
  quietMs?: number;
  /** The least time between two collections; default 10 s. */
  minIntervalMs?: number;
  /** The collection; default V8's `gc()` when exposed. */
  collect?: () => void;
}

/** The middleware, and how many collections it made (for the tests). */
export interface IdleCollection {
  (req: Request, res: Response, next: NextFunction): void;
  collections(): number;
}

export function idleCollection(options: IdleCollectionOptions = {}): IdleCollection {
  const collect = options.collect ?? (globalThis as { gc?: () => void }).gc;
  const minBodyBytes = options.minBodyBytes ?? 1024 * 1024;
  const minOwedBytes = options.minOwedBytes ?? 8 * 1024 * 1024;
  const quietMs = options.quietMs ?? 1000;
  const minIntervalMs = options.minIntervalMs ?? 10_000;
  let running = 0;
  let owed = 0;
  let last = Number.NEGATIVE_INFINITY;
  let count = 0;
  let timer: NodeJS.Timeout | undefined;

  const arm = (ms: number): void => {
    clearTimeout(timer);
    // Nothing waits for it: a router closing does not wait for its collection.
    timer = setTimeout(fire, ms).unref();
  };
  const fire = (): void => {
    timer = undefined;
    if (running > 0 || owed < minOwedBytes || !collect) return;
    const wait = last + minIntervalMs - Date.now();
    if (wait > 0) return arm(wait);
    owed = 0;
    last = Date.now();
    count++;
    collect();
  };

  const middleware = (req: Request, res: Response, next: NextFunction): void => {
    const length = Number(req.get("content-length"));
    if (!collect || !(length >= minBodyBytes)) return next();
    running++;
    clearTimeout(timer);
    // "close" comes once the answer is sent or the connection is gone, whichever is first.
    res.once("close", () => {
      running--;
      owed += length;
      if (running === 0) arm(quietMs);
    });
    next();
  };
  return Object.assign(middleware, { collections: () => count });
}
