/**
 * The SQLite store's writer thread: owns the store's writing connection and lock, and runs the writes of
 * router/store/sqlite-store.ts one at a time, in the order they were made (and the reads of a private
 * in-memory database, which no other connection can reach). SQLite is synchronous; here its inserts stall no
 * stream of the router's event loop (and its checkpoints, mostly on a thread of their own, hardly stall a
 * commit: sqlite-checkpointer.ts).
 */
import { parentPort, workerData } from "node:worker_threads";
import { READ_OPS, toWireError, WRITE_OPS, type StoreAnswer, type StoreCall, type StoreThreadData } from "./sqlite-protocol.js";
import { SqliteTables } from "./sqlite-tables.js";

const port = parentPort!;
const writes: ReadonlySet<string> = new Set(WRITE_OPS);
const reads: ReadonlySet<string> = new Set(READ_OPS);
let tables: SqliteTables | undefined;

try {
  const { path, checkpoints, restartWanted } = workerData as StoreThreadData;
  tables = new SqliteTables(path, checkpoints.restartFrames, restartWanted);
  port.postMessage({ id: 0, value: null } satisfies StoreAnswer);
} catch (err) {
  port.postMessage({ id: 0, error: toWireError(err) } satisfies StoreAnswer);
  port.close();
}

port.on("message", (call: StoreCall) => {
  let answer: StoreAnswer;
  try {
    const target = !tables ? undefined : writes.has(call.op) ? tables : reads.has(call.op) ? tables.reads : undefined;
    if (!target) throw new Error(`the SQLite store cannot ${String(call.op)}`);
    const method = (target as unknown as Record<string, (...args: unknown[]) => unknown>)[call.op]!;
    answer = { id: call.id, value: method.apply(target, call.args) };
  } catch (err) {
    answer = { id: call.id, error: toWireError(err) };
  }
  port.postMessage(answer);
  if (call.op === "close") {
    tables = undefined;
    port.close();
  }
});
