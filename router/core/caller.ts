/**
 * Who is calling: the principal an API key stands for. Made by the HTTP layer's auth (router/http/auth.ts),
 * read by whatever decides ownership and agent access; lives here so every layer can name it.
 */
export interface Caller {
  /** Stable principal id: the key's `name`, else `key-` and a short hash of the key (never the key itself). */
  readonly id: string;
  /** Agent ids/names this caller may use; undefined: every agent. */
  readonly agents?: readonly string[];
}
