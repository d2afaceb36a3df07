/**
 * The ids the router makes for tasks and contexts (a v0.1 client names its own tasks; every other id is
 * ours), and the task ids the CLI names for v0.1 targets.
 */
import { v7 } from "uuid";

/**
 * A new task or context id: an RFC 9562 version 7 UUID, whose leading 48 bits are the time in milliseconds.
 * Ids made later sort later, so a store's indexes on them grow at their end: a SQLite commit of new tasks
 * touches the last page of each index instead of a random page per task (docs/benchmarks.md, ninth pass,
 * measured 2-2.5x less commit time per task). The time it shows is no secret: the task carries it already.
 */
export function newId(): string {
  return v7();
}
