/**
 * Opening a SQLite store's file: pragmas, its layout (sqlite-schema.ts) and the one-router-per-file lock, on
 * the store's writer thread (router/store/sqlite-worker.ts); and the other connections to a file that thread
 * has open: the checkpoint thread's (sqlite-checkpointer.ts) and the router thread's small commits'
 * (`openForInlineCommits`).
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import Database from "better-sqlite3";
import { migrate } from "./sqlite-schema.js";

/** How long a connection waits for a lock: long enough for a brief holder, short for a refusal. */
const BUSY_MS = 500;
const WAL_LIMIT_BYTES = 64 * 1024 * 1024;

/** Whether the path names a file another connection could open (not a private in-memory or temp database). */
export function isFile(path: string): boolean {
  return path !== ":memory:" && path !== "";
}

/** Where the pid of the router holding a file store is written. */
export function pidFile(path: string): string {
  return `${path}.pid`;
}

/** Where the lock that keeps a second router off a file store is held (a SQLite file of its own, left in place). */
export function lockFile(path: string): string {
  return `${path}.lock`;
}

/** A store's open file: the connection, and the lock file's connection that holds the store for this router. */
export interface OpenedFile {
  db: Database.Database;
  lock: Database.Database | undefined;
}

/**
 * Opens (creating the parent directory), takes the store's lock and migrates; any failure names the path, and
 * a lock held elsewhere names the holder's pid.
 *
 * The lock is an exclusive SQLite lock on `PATH.lock`, not on the database: the database is shared with the
 * store's checkpoint thread (sqlite-checkpointer.ts), and SQLite's own exclusive mode allows one connection
 * only. SQLite knows its locks across threads and processes, and the operating system drops them with the
 * process that held them.
 *
 * Checkpoints are the checkpoint thread's (`wal_autocheckpoint = 0`): SQLite would run one inside the COMMIT
 * that crosses its threshold, and every commit behind it would wait for its copying and fsyncs.
 */
export function openDatabase(path: string): OpenedFile {
  let db: Database.Database | undefined;
  let lock: Database.Database | undefined;
  try {
    if (isFile(path)) {
      mkdirSync(dirname(resolve(path)), { recursive: true });
      lock = takeLock(path);
    }
    db = new Database(path);
    db.pragma(`busy_timeout = ${BUSY_MS}`);
    db.pragma("journal_mode = WAL");
    // With WAL, NORMAL loses at most the last commits on power loss, never consistency; much faster.
    db.pragma("synchronous = NORMAL");
    db.pragma("wal_autocheckpoint = 0");
    // When the WAL starts over, it is cut back to this (it can grow past it while commits never pause).
    db.pragma(`journal_size_limit = ${WAL_LIMIT_BYTES}`);
    migrate(db);
  } catch (err) {
    db?.close();
    lock?.close();
    if ((err as { code?: unknown }).code === "SQLITE_BUSY" && isFile(path)) {
      throw new Error(`store sqlite:${path} is in use by another a2a-router (pid ${holderPid(path)})`, { cause: err });
    }
    throw new Error(`cannot open SQLite store at ${path}: ${(err as Error).message}`, { cause: err });
  }
  if (isFile(path)) {
    try {
      writeFileSync(pidFile(path), `${process.pid}\n`);
    } catch {
      // Only the message a refused second router prints needs it; the lock is what keeps it out.
    }
  }
  return { db, lock };
}

/** A connection for checkpoints only, to a store some thread of this process has open. */
export function openForCheckpoints(path: string): Database.Database {
  const db = new Database(path, { fileMustExist: true });
  db.pragma(`busy_timeout = ${BUSY_MS}`);
  db.pragma("wal_autocheckpoint = 0");
  return db;
}

/**
 * A second writing connection, on the router's thread, to a store the writer thread has open (and migrated):
 * for small commits made while the writer is idle (SqliteStore says why). It never waits for a lock
 * (`busy_timeout = 0`): a commit that finds one taken goes to the writer thread instead, which may.
 */
export function openForInlineCommits(path: string): Database.Database {
  const db = new Database(path, { fileMustExist: true });
  db.pragma("busy_timeout = 0");
  db.pragma("synchronous = NORMAL");
  db.pragma("wal_autocheckpoint = 0");
  return db;
}

/** Exclusive mode keeps the lock from the first write to close; BEGIN EXCLUSIVE is that write. */
function takeLock(path: string): Database.Database {
  const lock = new Database(lockFile(path));
  try {
    lock.pragma(`busy_timeout = ${BUSY_MS}`);
    lock.pragma("locking_mode = EXCLUSIVE");
    lock.exec("BEGIN EXCLUSIVE; COMMIT");
    return lock;
  } catch (err) {
    lock.close();
    throw err;
  }
}

/** Closes, removing the pid file first: once the lock is gone, the next owner may already have written its own. */
export function closeDatabase(file: OpenedFile, path: string): void {
  if (!file.db.open) return;
  if (isFile(path)) rmSync(pidFile(path), { force: true });
  file.db.close();
  file.lock?.close();
}

/** The pid in a file store's pid file when that process is alive, else "unknown". */
function holderPid(path: string): string {
  let pid: number;
  try {
    pid = Number.parseInt(readFileSync(pidFile(path), "utf8"), 10);
  } catch {
    return "unknown";
  }
  if (!Number.isSafeInteger(pid) || pid <= 0) return "unknown";
  try {
    process.kill(pid, 0); // signal 0: no signal, only whether the process exists
    return String(pid);
  } catch (err) {
    // EPERM: it exists but belongs to another user.
    return (err as NodeJS.ErrnoException).code === "EPERM" ? String(pid) : "unknown";
  }
}
