/**
 * The SQLite store's checkpoint thread. A checkpoint copies the WAL into the database file and fsyncs both,
 * the only time a WAL database in `synchronous = NORMAL` waits for the disk; on a connection of its own it
 * runs beside the commits instead of ahead of them (a PASSIVE checkpoint takes no lock a writer needs).
 *
 * While commits keep coming, a checkpoint never finds the WAL fully copied, and SQLite only starts the WAL over
 * from its beginning when it is. A RESTART checkpoint from here would take the writer's lock and hold every
 * commit while it copies, fsyncs and waits for readers, with SQLite's busy back-off on both sides: 20-45 ms
 * stalls, measured. So past `restartFrames` this thread only raises `restartWanted`, and the writer copies the
 * few frames written since this thread's last pass itself, between two commits, without waiting for anyone:
 * its next commit finds the WAL fully copied and starts it over (sqlite-tables.ts). Each pass here copies what
 * was written during the one before, so a few passes in a row first leave the writer 1-2 ms of copying, not
 * the 5-10 ms of a whole interval's frames (measured at 40 MB/s of WAL).
 */
import { parentPort, workerData } from "node:worker_threads";
import type Database from "better-sqlite3";
import { openForCheckpoints } from "./sqlite-open.js";
import { toWireError, type StoreAnswer, type StoreThreadData } from "./sqlite-protocol.js";

interface CheckpointRow {
  busy: number;
  log: number;
  checkpointed: number;
}

const port = parentPort!;
const { path, checkpoints, restartWanted } = workerData as StoreThreadData;
/** At most this many more passes before the writer is asked to copy the rest. */
const TAIL_PASSES = 4;
/** A pass during which no more frames than this were written ends them. */
const TAIL_FRAMES = 64;

let db: Database.Database | undefined;
let timer: NodeJS.Timeout | undefined;

/** Started beside the writer, it opens the file only when told the writer has (created and migrated it). */
port.on("message", (command: "open" | "stop") => {
  if (command === "open") return open();
  clearInterval(timer);
  db?.close();
  port.close();
});

/** One PASSIVE checkpoint: `log` is the WAL's frames as it began, `checkpointed` those copied. */
function pass(conn: Database.Database): CheckpointRow | undefined {
  return (conn.pragma("wal_checkpoint(PASSIVE)") as CheckpointRow[])[0];
}

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
      const done = pass(conn);
      if (done && done.log >= checkpoints.restartFrames) {
        for (let i = 0, last = done.log; i < TAIL_PASSES; i++) {
          const next = pass(conn);
          // Fewer new frames than that, or the WAL already started over (the writer's own bound).
          if (!next || next.log - last <= TAIL_FRAMES) break;
          last = next.log;
        }
        Atomics.store(restartWanted, 0, 1);
      }
    } catch {
      // Nothing is lost: the WAL keeps every commit, and the next checkpoint copies it.
    }
  }, checkpoints.everyMs);
  port.postMessage({ id: 0, value: null } satisfies StoreAnswer);
}
