import { randomUUID } from "node:crypto";
import { hostname } from "node:os";
import type { Redis } from "ioredis";
import type { Logger } from "pino";
import { CLAIM, CLAIM_OWNER_LUA, RELEASE_OWNER_LUA } from "./redis-scripts.js";

/** Where the owner key lives and how it is described in errors and logs. */
export interface OwnerKeyOptions {
  key: string;
  ttlMs: number;
  /** `redis://...` without credentials, and the prefix: what errors and log lines name. */
  where: { store: string; prefix: string };
  log: Pick<Logger, "warn" | "error">;
}

/**
 * One router per Redis store (when the store is exclusive): `<prefix>owner` is taken with SET NX and a TTL,
 * renewed every third of it, and deleted on release. A router killed without releasing keeps the next one out
 * for at most one TTL; losing the key to another router (after not renewing it for a whole TTL) is logged.
 */
export class RedisOwnerKey {
  #redis: Redis;
  #opts: OwnerKeyOptions;
  #token: string | undefined;
  #timer: NodeJS.Timeout | undefined;
  #owning = false;
  #renewing = false;

  constructor(redis: Redis, options: OwnerKeyOptions) {
    this.#redis = redis;
    this.#opts = options;
  }

  /**
   * Takes the key and starts renewing it. Rejects with "connect" when Redis does not answer, or "held" when
   * another live router holds the key (the caller closes the store and says so).
   */
  async take(): Promise<"ok" | "held"> {
    if (this.#token !== undefined) return "ok";
    // Host and pid first, so `GET <prefix>owner` tells an operator who holds the store.
    const token = `${hostname()}:${process.pid}:${randomUUID()}`;
    if ((await this.#claim(token)) === CLAIM.held) return "held";
    this.#token = token;
    this.#owning = true;
    this.#timer = setInterval(() => void this.#renew(), Math.floor(this.#opts.ttlMs / 3));
    this.#timer.unref();
    return "ok";
  }

  /** Stops renewing and deletes the key if it is still ours (when Redis answers; otherwise it expires). */
  async release(): Promise<void> {
    clearInterval(this.#timer);
    this.#timer = undefined;
    const token = this.#token;
    this.#token = undefined;
    if (token !== undefined && this.#redis.status === "ready") {
      await this.#redis.eval(RELEASE_OWNER_LUA, 1, this.#opts.key, token).catch(() => undefined);
    }
  }

  async #claim(token: string): Promise<number> {
    return (await this.#redis.eval(CLAIM_OWNER_LUA, 1, this.#opts.key, token, String(this.#opts.ttlMs))) as number;
  }

  /** One renewal tick: keeps the key, or retakes it when it expired, logging when ownership changes hands. */
  async #renew(): Promise<void> {
    const token = this.#token;
    if (token === undefined || this.#renewing) return;
    this.#renewing = true;
    try {
      const claim = await this.#claim(token);
      if (this.#token !== token) return; // released meanwhile
      const { where, log } = this.#opts;
      if (claim === CLAIM.held) {
        if (this.#owning) {
          log.error(
            where,
            "LOST OWNERSHIP of the store: another a2a-router took it after this one could not renew it; " +
              "two routers on one store corrupt each other's task logs: stop one of them",
          );
        }
        this.#owning = false;
      } else {
        if (claim === CLAIM.taken) {
          log.warn(
            where,
            this.#owning
              ? "store owner key had expired (Redis unreachable or this process stalled for a whole TTL); taken again"
              : "store ownership regained: the other a2a-router let it go",
          );
        }
        this.#owning = true;
      }
    } catch {
      // Redis unreachable: the next tick tries again (commits report the outage themselves).
    } finally {
      this.#renewing = false;
    }
  }
}
