import { randomUUID } from "node:crypto";
import type { Redis } from "ioredis";
import type { Logger } from "pino";
import { TaskError, type TaskErrorReason } from "../core/errors.js";
import type { ClusterKeys } from "../store/cluster-keys.js";

/** Entries an inbox keeps (XADD MAXLEN ~): far more than hand-overs in flight. */
const INBOX_MAX = 10_000;
/** An inbox nobody writes to for this long disappears (the inbox of an instance that is gone). */
const INBOX_TTL_MS = 10 * 60_000;
/** How long one XREAD blocks before the loop looks around (stopping, a new instance id). */
const BLOCK_MS = 1000;

/** What an instance does with the requests other instances hand it. */
export interface InboxHandlers {
  [kind: string]: (body: unknown) => Promise<unknown>;
}

interface Pending {
  resolve: (value: unknown) => void;
  reject: (err: Error) => void;
  timer: NodeJS.Timeout;
}

/**
 * Hand-overs between instances: each instance reads its own Redis stream (`cluster:inbox:<id>`) with one
 * blocking connection; a request is an entry there, its answer an entry in the asker's inbox. A stream, not
 * pub/sub, because an entry waits for its reader: a hand-over is not lost when it arrives while the reader
 * is between two reads.
 */
export class Inbox {
  #reader: Redis;
  #writer: Redis;
  #keys: ClusterKeys;
  #instanceId: () => string;
  #handlers: InboxHandlers;
  #log: Logger;
  #pending = new Map<string, Pending>();
  #stopped = false;
  #loop: Promise<void> | undefined;

  constructor(reader: Redis, writer: Redis, keys: ClusterKeys, instanceId: () => string, handlers: InboxHandlers, log: Logger) {
    this.#reader = reader;
    this.#writer = writer;
    this.#keys = keys;
    this.#instanceId = instanceId;
    this.#handlers = handlers;
    this.#log = log;
  }

  start(): void {
    this.#loop = this.#read();
  }

  /** Stops reading (the reader connection is closed by its owner, which ends a blocked XREAD). */
  async stop(): Promise<void> {
    this.#stopped = true;
    for (const p of this.#pending.values()) {
      clearTimeout(p.timer);
      p.reject(TaskError.shuttingDown());
    }
    this.#pending.clear();
    await this.#writer.del(this.#keys.inbox(this.#instanceId())).catch(() => undefined);
  }

  /** Waits for the reader loop to end (after stop and the reader's disconnect). */
  get stopped(): Promise<void> {
    return this.#loop ?? Promise.resolve();
  }

  /**
   * Sends a request of `kind` to instance `to` and resolves with its answer; a TaskError raised there is
   * raised here; no answer within `timeoutMs` rejects with `onTimeout()`.
   */
  request(to: string, kind: string, body: unknown, timeoutMs: number, onTimeout: () => Error): Promise<unknown> {
    const rid = randomUUID();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#pending.delete(rid);
        reject(onTimeout());
      }, timeoutMs);
      this.#pending.set(rid, { resolve, reject, timer });
      this.#post(to, { kind, from: this.#instanceId(), rid, body: JSON.stringify(body) }).catch((err: Error) => {
        clearTimeout(timer);
        this.#pending.delete(rid);
        reject(err);
      });
    });
  }

  async #post(to: string, fields: Record<string, string>): Promise<void> {
    const key = this.#keys.inbox(to);
    await this.#writer
      .multi()
      .xadd(key, "MAXLEN", "~", INBOX_MAX, "*", ...Object.entries(fields).flat())
      .pexpire(key, INBOX_TTL_MS)
      .exec();
  }

  async #read(): Promise<void> {
    let reading = "";
    let last = "0-0";
    while (!this.#stopped) {
      const id = this.#instanceId();
      // A new instance id (the lease was lost) means a new inbox, read from its beginning.
      if (id !== reading) {
        reading = id;
        last = "0-0";
      }
      let reply: Array<[string, Array<[string, string[]]>]> | null;
      try {
        reply = (await this.#reader.xread("COUNT", 100, "BLOCK", BLOCK_MS, "STREAMS", this.#keys.inbox(id), last)) as typeof reply;
      } catch (err) {
        if (this.#stopped) return;
        this.#log.warn({ err }, "cluster inbox read failed; retrying");
        await new Promise((r) => setTimeout(r, BLOCK_MS).unref());
        continue;
      }
      for (const [, entries] of reply ?? []) {
        for (const [entryId, flat] of entries) {
          last = entryId;
          const fields: Record<string, string> = {};
          for (let i = 0; i + 1 < flat.length; i += 2) fields[flat[i]!] = flat[i + 1]!;
          this.#handle(fields);
        }
      }
    }
  }

  #handle(fields: Record<string, string>): void {
    const { kind, from, rid, body } = fields;
    if (!kind || !rid || body === undefined) return;
    if (kind === "reply") {
      const pending = this.#pending.get(rid);
      if (!pending) return;
      this.#pending.delete(rid);
      clearTimeout(pending.timer);
      const answer = JSON.parse(body) as { value?: unknown; error?: { reason: TaskErrorReason; message: string; data?: Record<string, unknown> } };
      if (answer.error) pending.reject(new TaskError(answer.error.reason, answer.error.message, answer.error.data));
      else pending.resolve(answer.value);
      return;
    }
    const handler = this.#handlers[kind];
    if (!handler || !from) return;
    void handler(JSON.parse(body))
      .then(
        (value) => ({ value }),
        (err: unknown) => {
          const e = err instanceof TaskError ? err : TaskError.internal("the agent's router instance could not start the task");
          if (!(err instanceof TaskError)) this.#log.error({ err, kind }, "cluster hand-over failed");
          return { error: { reason: e.reason, message: e.message, ...(e.data && { data: e.data }) } };
        },
      )
      .then((answer) => this.#post(from, { kind: "reply", from: this.#instanceId(), rid, body: JSON.stringify(answer) }))
      .catch((err: unknown) => this.#log.warn({ err, kind }, "cluster hand-over answer could not be sent"));
  }
}
