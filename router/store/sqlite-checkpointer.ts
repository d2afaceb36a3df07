/**
 * The SQLite store's checkpoint thread. A checkpoint copies the WAL into the database file and fsyncs both,
 * the only time a WAL database in `synchronous = NORMAL` waits for the disk; on a connection of its own it
 * runs beside the commits instead of ahead of them (a PASSIVE checkpoint takes no lock a writer needs).
 *
 * While commits keep coming, a checkpoint never finds the WAL fully copied, and SQLite only starts the WAL over
 * from its beginning when it is: so past `restartFrames`, one RESTART checkpoint waits for the writer's
 * current transaction and holds the next one for the little PASSIVE left uncopied. (Should this thread be
 * starved of a core, the writer does the same at twice that: sqlite-tables.ts.)
 */
import { parentPort, workerData } from "node:worker_threads";
import type Database from "better-sqlite3";
import { openForCheckpoints } from "./sqlite-open.js";
import { toWireError, type CheckpointOptions, type StoreAnswer } from "./sqlite-protocol.js";

interface CheckpointRow {
  busy: number;
  log: number;
  checkpointed: number;
}

const port = parentPort!;
const { path, checkpoints } = workerData as { path: string; checkpoints: CheckpointOptions };
let db: Database.Database | undefined;
let timer: NodeJS.Timeout | undefined;

/** Started beside the writer, it opens the file only when told the writer has (created and migrated it). */
port.on("message", (command: "open" | "stop") => {
  if (command === "open") return open();
  clearInterval(timer);
  db?.close();
  port.close();
});

function open(): void {
  try {
    db = openForCheckpoints(path);
  } catch (err) {
    port.postMessage({ id: 0, error: toWireError(err) } satisfies StoreAnswer);
    return;
  }
  const conn = db;
  timer = setInterval(() => {
    try {
      const [done] = conn.pragma("wal_checkpoint(PASSIVE)") as CheckpointRow[];
      if (done && done.log >= checkpoints.restartFrames) conn.pragma("wal_checkpoint(RESTART)");
    } catch {
      // Nothing is lost: the WAL keeps every commit, and the next checkpoint copies it.
    }
  }, checkpoints.everyMs);
  port.postMessage({ id: 0, value: null } satisfies StoreAnswer);
}
