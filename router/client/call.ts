/**
 * A request to an A2A server, in its binding. JSON-RPC (no `path`): `method` and `params` in a JSON-RPC
 * envelope, POSTed to the endpoint, answered in an envelope. HTTP+JSON (`path` set): `params` is the body as
 * is (none for GET and DELETE), sent with `verb` to the endpoint + `path`, answered bare (errors as
 * google.rpc.Status); `method` then only names the call in error messages. Each dialect's codec builds
 * these (router/dialects/<dialect>/codec.ts); the transport (transport.ts) sends them.
 */
export interface ClientCall {
  method: string;
  params: unknown;
  /** HTTP+JSON binding: the operation's path (and query) under the interface URL (`/message:send`, `/tasks/{id}:cancel`). */
  path?: string;
  /** HTTP+JSON binding: the HTTP method; POST when absent. */
  verb?: "GET" | "POST" | "DELETE";
  /** Headers this call's dialect needs (v0.3/v1.0: `A2A-Version`). */
  headers?: Record<string, string>;
}
