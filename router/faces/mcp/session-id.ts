/**
 * MCP session ids that any router instance can verify without a shared table: the id itself says what the
 * client declared at `initialize` (its protocol revision, whether it takes form elicitation) and whose API key
 * opened it, sealed with an HMAC. A request with such an id is served after a restart or on another instance
 * of the cluster: the instance rebuilds the session from the id (sessions.ts).
 */
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";

/** What a session id says. */
export interface SessionClaims {
  /** The principal of the API key that opened the session (null: no keys configured). */
  owner: string | null;
  /** The protocol revision negotiated at initialize. */
  protocolVersion: string;
  /** The client declared `elicitation` (form mode). */
  elicitation: boolean;
  /** The client's name and version, as it sent them (shown in logs). */
  client: { name: string; version: string };
}

const PREFIX = "mcp1";
/** Ids longer than this are refused unread (a header is not a place for a document). */
const MAX_ID_LENGTH = 1024;

const b64 = (text: string): string => Buffer.from(text, "utf8").toString("base64url");

/** Seals and opens session ids with one key (every instance of a cluster derives the same one). */
export class SessionIds {
  readonly #key: Buffer;

  /** `secret`: shared by every instance that serves the same sessions (the configured API keys, see docs/mcp.md). */
  constructor(secret: string) {
    this.#key = createHmac("sha256", "a2a-router mcp session").update(secret).digest();
  }

  /** A new id for these claims (a random nonce makes every session's id unique). */
  issue(claims: SessionClaims): string {
    const body = b64(
      JSON.stringify({ o: claims.owner, v: claims.protocolVersion, e: claims.elicitation ? 1 : 0, c: claims.client, n: randomBytes(9).toString("base64url") }),
    );
    return `${PREFIX}.${body}.${this.#mac(body)}`;
  }

  /** The claims of an id this key sealed; undefined for anything else (forged, altered, foreign, malformed). */
  open(id: string): SessionClaims | undefined {
    if (id.length > MAX_ID_LENGTH) return undefined;
    const [prefix, body, mac, extra] = id.split(".");
    if (prefix !== PREFIX || !body || !mac || extra !== undefined) return undefined;
    const expected = Buffer.from(this.#mac(body));
    const given = Buffer.from(mac);
    if (expected.length !== given.length || !timingSafeEqual(expected, given)) return undefined;
    try {
      const raw = JSON.parse(Buffer.from(body, "base64url").toString("utf8")) as Record<string, unknown>;
      const client = raw.c as { name?: unknown; version?: unknown } | undefined;
      if (typeof raw.v !== "string" || (raw.o !== null && typeof raw.o !== "string")) return undefined;
      return {
        owner: raw.o as string | null,
        protocolVersion: raw.v,
        elicitation: raw.e === 1,
        client: { name: String(client?.name ?? "unknown"), version: String(client?.version ?? "0") },
      };
    } catch {
      return undefined;
    }
  }

  #mac(body: string): string {
    return createHmac("sha256", this.#key).update(body).digest("base64url");
  }
}
