import WebSocket from "ws";
import { backoffDelay } from "./backoff.js";
import { AgentRefusedError } from "./errors.js";
import { DEFAULTS, FATAL_UPGRADE_STATUSES, type Settings } from "./options.js";
import { HUB_METHODS, isRequest, parseFrame, type JsonRpcId, type JsonRpcRequest, type JsonRpcResponse } from "./protocol.js";

/** An error answer from the hub, with its JSON-RPC error attached. */
export type HubError = Error & { rpc?: JsonRpcResponse["error"] };

/** What the link tells its agent. */
export interface LinkEvents {
  /** A socket is open: register on it. */
  opened(): void;
  /** A request or notification from the hub. */
  request(frame: JsonRpcRequest): void;
  /** The socket closed (a redial follows unless the link was stopped or gives up). */
  closed(code: number, reason: string): void;
  reconnecting(attempt: number, delayMs: number): void;
  /** No retry will help (a refused upgrade, reconnect off): the agent stops. */
  fatal(error: Error): void;
}

interface Pending {
  answer(error: HubError | undefined, result: unknown): void;
}

/**
 * The agent's connection to the hub and its liveness: dialing (the hub URLs in turn), answers to our
 * requests, heartbeats counted in unanswered periods, and redialing with capped backoff.
 */
export class HubLink {
  #settings: Settings;
  #events: LinkEvents;
  #ws: WebSocket | undefined;
  #urlIndex = 0;
  #attempt = 0;
  #nextId = 1;
  #pending = new Map<JsonRpcId, Pending>();
  /** Heartbeats sent since the hub last sent anything (frame or ping). */
  #unanswered = 0;
  #lastError: string | undefined;
  #heartbeat: NodeJS.Timeout | undefined;
  #reconnectTimer: NodeJS.Timeout | undefined;
  #stopped = false;

  constructor(settings: Settings, events: LinkEvents) {
    this.#settings = settings;
    this.#events = events;
  }

  /** The hub URL dialed now (or last). */
  get url(): string {
    return this.#settings.urls[this.#urlIndex]!;
  }

  get isOpen(): boolean {
    return this.#ws?.readyState === WebSocket.OPEN;
  }

  connect(): void {
    const { token } = this.#settings;
    const ws = new WebSocket(this.url, { headers: token ? { Authorization: `Bearer ${token}` } : {} });
    this.#ws = ws;
    ws.on("open", () => {
      this.#unanswered = 0;
      this.#events.opened();
    });
    ws.on("message", (data, isBinary) => {
      this.#unanswered = 0;
      if (!isBinary && ws === this.#ws) this.#onFrame(data.toString());
    });
    ws.on("ping", () => {
      this.#unanswered = 0;
    });
    ws.on("unexpected-response", (_req, res) => {
      const status = res.statusCode ?? 0;
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => {
        if (body.length < DEFAULTS.refusalBodyBytes) body += chunk;
      });
      res.on("end", () => {
        if (FATAL_UPGRADE_STATUSES.has(status)) {
          const detail = body.trim().slice(0, DEFAULTS.refusalBodyBytes) || res.statusMessage || "";
          this.#events.fatal(new AgentRefusedError(`hub refused agent "${this.#settings.name}": HTTP ${status} ${detail}`.trim(), status));
        } else {
          this.#settings.logger.warn(`hub answered the upgrade with HTTP ${status}; retrying`);
        }
        ws.terminate();
      });
      res.on("error", () => ws.terminate());
    });
    ws.on("error", (err) => {
      this.#lastError = err.message;
      this.#settings.logger.debug(`hub link error: ${err.message}`);
    });
    ws.on("close", (code, reason) => this.#onClose(ws, code, reason.toString()));
  }

  /** Registered: the link works, so the backoff starts over and heartbeats begin. */
  established(): void {
    this.#attempt = 0;
    this.#lastError = undefined;
    this.#startHeartbeat();
  }

  write(frame: JsonRpcRequest | JsonRpcResponse, onError?: (err: Error) => void): void {
    const ws = this.#ws;
    if (!ws || ws.readyState !== WebSocket.OPEN) {
      onError?.(new Error("hub link is not open"));
      return;
    }
    ws.send(JSON.stringify(frame), (err) => {
      if (err) onError?.(err);
    });
  }

  /**
   * Sends a request; `answer` gets the hub's answer, or an error when the link dropped first. Resolves once
   * the frame is handed to the socket (false: it could not be, and `answer` was told).
   */
  call(method: string, params: unknown, answer: Pending["answer"]): Promise<boolean> {
    const id = this.#nextId++;
    this.#pending.set(id, { answer });
    return new Promise((resolve) => {
      const failed = (err: Error) => {
        if (this.#pending.delete(id)) answer(err, undefined);
        resolve(false);
      };
      const ws = this.#ws;
      if (!ws || ws.readyState !== WebSocket.OPEN) return failed(new Error("hub link is not open"));
      ws.send(JSON.stringify({ jsonrpc: "2.0", id, method, params }), (err) => (err ? failed(err) : resolve(true)));
    });
  }

  /** A request whose answer we wait for; a hub that does not answer within `timeoutMs` is redialed. */
  request(method: string, params: unknown, timeoutMs: number): Promise<unknown> {
    const ws = this.#ws;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#settings.logger.warn(`no answer to ${method} within ${timeoutMs} ms; reconnecting`);
        if (ws === this.#ws) ws?.terminate();
      }, timeoutMs);
      timer.unref();
      void this.call(method, params, (err, result) => {
        clearTimeout(timer);
        if (err) reject(err);
        else resolve(result);
      });
    });
  }

  respond(id: JsonRpcId | undefined, result: unknown): void {
    if (id !== undefined) this.write({ jsonrpc: "2.0", id, result });
  }

  respondError(id: JsonRpcId | undefined, error: NonNullable<JsonRpcResponse["error"]>): void {
    if (id !== undefined) this.write({ jsonrpc: "2.0", id, error });
  }

  /** Drops this socket and dials again (the hub still holds our previous link, or stopped answering). */
  redial(): void {
    this.#ws?.close();
  }

  /** Stops for good: no redial, no heartbeat. Resolves once the socket is closed. */
  stop(): Promise<void> {
    this.#stopped = true;
    if (this.#reconnectTimer) clearTimeout(this.#reconnectTimer);
    this.#reconnectTimer = undefined;
    this.#stopHeartbeat();
    const ws = this.#ws;
    if (!ws || ws.readyState === WebSocket.CLOSED) {
      this.#ws = undefined;
      return Promise.resolve();
    }
    return new Promise<void>((resolve) => {
      const cut = setTimeout(() => ws.terminate(), DEFAULTS.closeTimeoutMs);
      cut.unref();
      ws.once("close", () => {
        clearTimeout(cut);
        resolve();
      });
      if (ws.readyState === WebSocket.CONNECTING) ws.terminate();
      else ws.close(1000, "agent closing");
    });
  }

  get hasSocket(): boolean {
    return this.#ws !== undefined;
  }

  #onFrame(data: string): void {
    const frame = parseFrame(data);
    if (!frame) {
      this.#settings.logger.debug("ignored a frame that is not a JSON-RPC object");
      return;
    }
    if (isRequest(frame)) {
      this.#events.request(frame);
      return;
    }
    const pending = frame.id === null ? undefined : this.#pending.get(frame.id);
    if (!pending) return;
    this.#pending.delete(frame.id!);
    if (frame.error) pending.answer(Object.assign(new Error(frame.error.message), { rpc: frame.error }), undefined);
    else pending.answer(undefined, frame.result);
  }

  #onClose(ws: WebSocket, code: number, reason: string): void {
    if (ws !== this.#ws) return;
    this.#ws = undefined;
    this.#stopHeartbeat();
    this.#events.closed(code, reason);
    const dropped = new Error(`hub link closed (${code})`);
    const pending = [...this.#pending.values()];
    this.#pending.clear();
    for (const p of pending) p.answer(dropped, undefined);
    if (this.#stopped) return;
    const { reconnect } = this.#settings;
    if (reconnect === false) {
      const why = this.#lastError ? `: ${this.#lastError}` : ` (${code})`;
      this.#events.fatal(new Error(`hub link to ${this.url} closed${why}; reconnect is off`));
      return;
    }
    // Several hubs (one per router instance on a shared store): the next attempt goes to the next one.
    this.#urlIndex = (this.#urlIndex + 1) % this.#settings.urls.length;
    const delayMs = backoffDelay(this.#attempt, reconnect.initialDelayMs, reconnect.maxDelayMs);
    this.#attempt += 1;
    this.#settings.logger.debug(`hub link closed (${code}); reconnecting to ${this.url} in ${delayMs} ms`);
    this.#events.reconnecting(this.#attempt, delayMs);
    this.#reconnectTimer = setTimeout(() => {
      this.#reconnectTimer = undefined;
      if (!this.#stopped) this.connect();
    }, delayMs);
  }

  #startHeartbeat(): void {
    this.#stopHeartbeat();
    const ws = this.#ws;
    const { heartbeatMs } = this.#settings;
    // Silence is counted in heartbeats sent without any answer, not in elapsed time: an agent whose own
    // event loop stalled (a busy handler, a long GC) must not take its stall for a silent hub.
    this.#heartbeat = setInterval(() => {
      if (this.#unanswered >= DEFAULTS.unansweredHeartbeats) {
        this.#settings.logger.warn(`no frame from the hub for ${DEFAULTS.unansweredHeartbeats} heartbeats; reconnecting`);
        ws?.terminate();
        return;
      }
      // An id so a hub that only answers requests still acks; the answer needs no bookkeeping.
      this.write({ jsonrpc: "2.0", id: this.#nextId++, method: HUB_METHODS.HEARTBEAT, params: {} });
      this.#unanswered++;
    }, heartbeatMs);
    this.#heartbeat.unref();
  }

  #stopHeartbeat(): void {
    if (this.#heartbeat) clearInterval(this.#heartbeat);
    this.#heartbeat = undefined;
  }
}
