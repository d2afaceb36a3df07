/**
 * The SQLite store's worker thread: owns the store's connection and lock, and runs the calls of
 * router/store/sqlite-store.ts one at a time, in the order they were made. SQLite is synchronous; here its
 * inserts and reads stall no stream of the router's event loop (and its checkpoints, on a thread of their
 * own, stall no commit: sqlite-checkpointer.ts).
 */
import { parentPort, workerData } from "node:worker_threads";
import { STORE_OPS, toWireError, type CheckpointOptions, type StoreAnswer, type StoreCall } from "./sqlite-protocol.js";
import { SqliteTables } from "./sqlite-tables.js";

const port = parentPort!;
const ops: ReadonlySet<string> = new Set(STORE_OPS);
let tables: SqliteTables | undefined;

try {
  const { path, checkpoints } = workerData as { path: string; checkpoints: CheckpointOptions };
  tables = new SqliteTables(path, checkpoints.restartFrames);
  port.postMessage({ id: 0, value: null } satisfies StoreAnswer);
} catch (err) {
  port.postMessage({ id: 0, error: toWireError(err) } satisfies StoreAnswer);
  port.close();
}

port.on("message", (call: StoreCall) => {
  let answer: StoreAnswer;
  try {
    if (!tables || !ops.has(call.op)) throw new Error(`the SQLite store cannot ${String(call.op)}`);
    const method = tables[call.op] as (...args: unknown[]) => unknown;
    answer = { id: call.id, value: method.apply(tables, call.args) };
  } catch (err) {
    answer = { id: call.id, error: toWireError(err) };
  }
  port.postMessage(answer);
  if (call.op === "close") {
    tables = undefined;
    port.close();
  }
});
