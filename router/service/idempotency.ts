/**
 * A retry never runs a turn twice (CONTRACT 14): a request that starts a turn may carry the client's
 * `Idempotency-Key`, and a v0.3/v1.0 message its `messageId`; the first request to claim one runs the turn and
 * records which (its task, and the seq its events follow), every later one within `idempotency.ttlMs` gets
 * that turn again. The records live in the store (ExpiringRecordStore), so a retry to another router on one
 * Redis, or after a restart, is recognized too.
 *
 * A face plugs in by passing `TurnOnce` to TaskService.start/send/stream: the header's value, and
 * `requestDigest()` of the body as the face read it (a JSON-RPC request without its `id`). Nothing else.
 */
import { createHash } from "node:crypto";
import { TaskError } from "../core/errors.js";
import type { ExpiringRecordStore } from "../core/store.js";
import { MAX_ID_CHARS } from "./id-limits.js";

/** The request header a client names a request's identity with (the IETF httpapi draft's name). */
export const IDEMPOTENCY_HEADER = "Idempotency-Key";

/** How long a key is remembered when config says nothing: a day, as the IETF draft suggests and Stripe keeps. */
export const DEFAULT_IDEMPOTENCY_TTL_MS = 86_400_000;

/** What a face passes with a request that starts a turn, when its client may send it again. */
export interface TurnOnce {
  /** The request's `Idempotency-Key` header, as sent. */
  idempotencyKey?: string;
  /** `requestDigest()` of the request as read (a JSON-RPC request without its `id`): the same key with another digest is a conflict. */
  requestDigest?: string;
}

/** A turn already started, as a record names it. */
export interface RecordedTurn {
  taskId: string;
  fromSeq: number;
}

/** One identity a request claims: the record's key, and the digest a reuse must match (absent: any request matches). */
export interface TurnClaim {
  key: string;
  digest?: string;
  /** The client's value, for a conflict's message. */
  value: string;
}

/**
 * How long a claim whose turn is still starting holds its key: past it, a router that died between claiming and
 * starting no longer blocks the key. Starting a turn takes milliseconds (it is stored, not run).
 */
const PENDING_MS = 60_000;
/** How often a request whose key another request is starting looks again. */
const PENDING_POLL_MS = 20;

/** The digest a key is compared with: SHA-256 of the JSON with every object's members in name order. */
export function requestDigest(body: unknown): string {
  return createHash("sha256").update(canonicalJson(body)).digest("base64url");
}

/** The claim of an `Idempotency-Key`, per owner (absent owner: the router without API keys). */
export function idempotencyClaim(owner: string | undefined, key: string, digest: string): TurnClaim {
  if (key === "" || key.length > MAX_ID_CHARS) {
    throw TaskError.invalidParams(`${IDEMPOTENCY_HEADER} must be 1 to ${MAX_ID_CHARS} characters`, IDEMPOTENCY_HEADER);
  }
  return { key: `idem:${JSON.stringify([owner ?? "", key])}`, digest, value: key };
}

/** The claim of a message id, per owner and context (`scope`: the context id, or the task a message names). */
export function messageClaim(owner: string | undefined, scope: string, messageId: string): TurnClaim {
  return { key: `msg:${JSON.stringify([owner ?? "", scope, messageId])}`, value: messageId };
}

/** Runs a turn once per claimed identity; see the module's comment. */
export class TurnClaims {
  readonly #records: ExpiringRecordStore;
  readonly #ttlMs: number;

  constructor(records: ExpiringRecordStore, ttlMs: number) {
    this.#records = records;
    this.#ttlMs = ttlMs;
  }

  /**
   * Claims every identity in turn. When one names a turn already started, resolves with `replay` of it (and
   * the identities claimed before it name that turn too); otherwise `start` runs and every identity names its
   * turn. A start that fails frees what it claimed, so the client's retry runs. Throws the conflict of a key
   * reused with another request.
   */
  async once<T extends { task: { id: string }; fromSeq: number }>(
    claims: readonly TurnClaim[],
    start: () => Promise<T>,
    replay: (turn: RecordedTurn) => Promise<T>,
  ): Promise<T> {
    const mine: TurnClaim[] = [];
    let turn: T;
    try {
      let found: RecordedTurn | undefined;
      for (const claim of claims) {
        found = await this.#claim(claim);
        if (found) break;
        mine.push(claim);
      }
      turn = found ? await replay(found) : await start();
    } catch (err) {
      await Promise.all(mine.map((c) => this.#records.write(c.key, undefined, 0)));
      throw err;
    }
    const record = (c: TurnClaim) => JSON.stringify({ d: c.digest ?? null, t: turn.task.id, s: turn.fromSeq });
    await Promise.all(mine.map((c) => this.#records.write(c.key, record(c), this.#ttlMs)));
    return turn;
  }

  /** Undefined once this request holds the key; the recorded turn when another request started one under it. */
  async #claim(claim: TurnClaim): Promise<RecordedTurn | undefined> {
    const pending = JSON.stringify({ d: claim.digest ?? null });
    for (;;) {
      const held = await this.#records.claim(claim.key, pending, PENDING_MS);
      if (held === undefined) return undefined;
      const record = JSON.parse(held) as { d: string | null; t?: string; s?: number };
      if (claim.digest !== undefined && record.d !== claim.digest) throw TaskError.idempotencyConflict(claim.value);
      if (record.t !== undefined) return { taskId: record.t, fromSeq: record.s ?? 0 };
      // Another request holds the key and is starting its turn: its record names the turn in a moment.
      await new Promise((resolve) => setTimeout(resolve, PENDING_POLL_MS));
    }
  }
}

/** JSON with object members in name order, so two encodings of one request digest alike. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const members = Object.keys(value)
      .sort()
      .filter((k) => (value as Record<string, unknown>)[k] !== undefined)
      .map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`);
    return `{${members.join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}
