/**
 * The MCP sessions this instance holds in memory: a server and transport per session, made at initialize, or
 * rebuilt from the session id alone when a request names a session this instance does not hold (after a
 * restart, or one another instance opened): the id says everything the session needs (session-id.ts). Idle
 * sessions are let go, since any instance can rebuild them; sessions are told when their tool list changes.
 */
import type { InitializeRequest } from "@modelcontextprotocol/sdk/types.js";
import { DEFAULT_NEGOTIATED_PROTOCOL_VERSION, LATEST_PROTOCOL_VERSION, SUPPORTED_PROTOCOL_VERSIONS } from "@modelcontextprotocol/sdk/types.js";
import type { Logger } from "pino";
import type { Scope } from "../../service/scope.js";
import type { TaskService } from "../../service/task-service.js";
import type { SessionContext } from "./context.js";
import { SessionEventStore } from "./event-store.js";
import { createSessionServer, type SessionServer } from "./server.js";
import type { SessionClaims, SessionIds } from "./session-id.js";
import { toolsFingerprint } from "./tools.js";
import { discard } from "./web-bridge.js";

export interface McpSessionsOptions {
  service: TaskService;
  logger: Logger;
  ids: SessionIds;
  /** SSE keep-alive comments on idle streams (the router's heartbeatMs). */
  keepAliveMs: number;
  /** A session with no request, stream or call for this long is let go (default 30 min). */
  idleMs?: number;
  /** At most this many sessions in memory (default 10000): the longest idle go first. */
  maxSessions?: number;
  /** How often tool lists are compared for `list_changed` (default 1000 ms). */
  watchMs?: number;
}

export interface LiveSession extends SessionServer {
  ctx: SessionContext;
  lastUsed: number;
  /** Requests of the session being served now (streams open). */
  busy: number;
  tools: string;
}

/** Sessions ended here (DELETE) are refused on this instance for this long. */
const ENDED_MEMORY = 10_000;

export class McpSessions {
  #opts: Required<McpSessionsOptions>;
  #live = new Map<string, LiveSession>();
  #reviving = new Map<string, Promise<LiveSession>>();
  #ended = new Set<string>();
  #timer: NodeJS.Timeout | undefined;

  constructor(options: McpSessionsOptions) {
    this.#opts = { idleMs: 30 * 60_000, maxSessions: 10_000, watchMs: 1000, ...options };
  }

  /** A new session for an `initialize` request from this caller. */
  async create(init: InitializeRequest["params"], scope: Scope): Promise<LiveSession> {
    const requested = init.protocolVersion;
    const elicitation = init.capabilities.elicitation;
    const claims: SessionClaims = {
      owner: scope.caller?.principal ?? null,
      protocolVersion: SUPPORTED_PROTOCOL_VERSIONS.includes(requested) ? requested : LATEST_PROTOCOL_VERSION,
      // `{}` (the revisions before modes) and `{form: {}}` both take forms; `{url: {}}` alone does not.
      elicitation: elicitation !== undefined && (elicitation.form !== undefined || elicitation.url === undefined),
      client: { name: init.clientInfo.name, version: init.clientInfo.version },
    };
    return this.#build(this.#opts.ids.issue(claims), claims, scope);
  }

  /** The session `id` as this caller may use it (held, or rebuilt from its id); undefined: no such session. */
  async find(id: string, scope: Scope): Promise<LiveSession | undefined> {
    // A session held here was opened (or issued) by this very id string: its claims are the ones it holds.
    const held = this.#live.get(id);
    if (held) return held.ctx.claims.owner === (scope.caller?.principal ?? null) ? held : undefined;
    const claims = this.#opts.ids.open(id);
    if (!claims || claims.owner !== (scope.caller?.principal ?? null) || this.#ended.has(id)) return undefined;
    const live = this.#live.get(id);
    if (live) return live;
    let reviving = this.#reviving.get(id);
    if (!reviving) {
      reviving = this.#revive(id, claims, scope).finally(() => this.#reviving.delete(id));
      this.#reviving.set(id, reviving);
    }
    return reviving;
  }

  /** Ends a session on this instance (DELETE): its server closes, and its id is refused here from now on. */
  async end(session: LiveSession): Promise<void> {
    this.#ended.add(session.ctx.id);
    for (const old of this.#ended) {
      if (this.#ended.size <= ENDED_MEMORY) break;
      this.#ended.delete(old);
    }
    await this.#drop(session);
  }

  /** Marks a request of the session as being served until the returned function is called. */
  hold(session: LiveSession): () => void {
    session.busy++;
    session.lastUsed = Date.now();
    return () => {
      session.busy--;
      session.lastUsed = Date.now();
    };
  }

  /** Closes every session (router shutdown). */
  async close(): Promise<void> {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = undefined;
    await Promise.all([...this.#live.values()].map((s) => this.#drop(s)));
  }

  async #revive(id: string, claims: SessionClaims, scope: Scope): Promise<LiveSession> {
    const session = await this.#build(id, claims, scope);
    // The transport learns the session as at its start: a synthetic initialize with what the id says.
    const post = (body: unknown, headers: Record<string, string> = {}) =>
      session.transport.handleRequest(
        new Request("http://router.invalid/mcp", {
          method: "POST",
          headers: { accept: "application/json, text/event-stream", "content-type": "application/json", ...headers },
        }),
        { parsedBody: body },
      );
    const capabilities = claims.elicitation ? { elicitation: { form: {} } } : {};
    await discard(
      await post({
        jsonrpc: "2.0",
        id: "a2a-router-revive",
        method: "initialize",
        params: { protocolVersion: claims.protocolVersion, capabilities, clientInfo: claims.client },
      }),
    );
    await discard(
      await post(
        { jsonrpc: "2.0", method: "notifications/initialized" },
        { "mcp-session-id": id, "mcp-protocol-version": claims.protocolVersion ?? DEFAULT_NEGOTIATED_PROTOCOL_VERSION },
      ),
    );
    this.#opts.logger.debug({ session: id }, "mcp: session rebuilt from its id");
    return session;
  }

  async #build(id: string, claims: SessionClaims, scope: Scope): Promise<LiveSession> {
    const { service, logger } = this.#opts;
    const ctx: SessionContext = {
      id,
      claims,
      scope,
      service,
      logger,
      store: new SessionEventStore(),
      plans: new Map(),
      calls: new Map(),
      streams: new Map(),
      cancelled: new Set(),
      closing: false,
    };
    const built = await createSessionServer(ctx, this.#opts.keepAliveMs);
    const session: LiveSession = { ...built, ctx, lastUsed: Date.now(), busy: 0, tools: toolsFingerprint(service.listAgents(scope.caller)) };
    this.#live.set(id, session);
    this.#evict();
    this.#watch();
    return session;
  }

  async #drop(session: LiveSession): Promise<void> {
    session.ctx.closing = true;
    this.#live.delete(session.ctx.id);
    await session.server.close().catch(() => undefined);
  }

  /** Lets go of idle sessions: past idleMs, and the longest idle beyond maxSessions. */
  #evict(now = Date.now()): void {
    const idle = [...this.#live.values()].filter((s) => s.busy === 0 && s.ctx.calls.size === 0).sort((a, b) => a.lastUsed - b.lastUsed);
    let over = this.#live.size - this.#opts.maxSessions;
    for (const s of idle) {
      if (over <= 0 && now - s.lastUsed < this.#opts.idleMs) break;
      over--;
      void this.#drop(s);
    }
  }

  /** One timer for every session: tells each whose tool list changed, and lets idle ones go. */
  #watch(): void {
    if (this.#timer) return;
    this.#timer = setInterval(() => {
      for (const s of this.#live.values()) {
        const tools = toolsFingerprint(this.#opts.service.listAgents(s.ctx.scope.caller));
        if (tools === s.tools) continue;
        s.tools = tools;
        s.server.sendToolListChanged().catch((err: unknown) => this.#opts.logger.debug({ err, session: s.ctx.id }, "mcp: list_changed not sent"));
      }
      this.#evict();
      if (this.#live.size === 0 && this.#timer) {
        clearInterval(this.#timer);
        this.#timer = undefined;
      }
    }, this.#opts.watchMs);
    this.#timer.unref();
  }
}
