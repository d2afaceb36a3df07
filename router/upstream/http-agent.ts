import { randomUUID } from "node:crypto";
import { EventSourceParserStream } from "eventsource-parser/stream";
import type { Logger } from "pino";
import type { AgentConnector, AgentInfo, ExecuteContext } from "../core/agent.js";
import type { AgentUpdate } from "../core/model.js";
import { exceedsDepth, MAX_JSON_DEPTH } from "../schema/depth.js";
import { discoverAgent, parseProtocol, type DiscoveredAgent } from "./card-discovery.js";
import { deadline } from "./deadline.js";
import { upstreamProtocol, type UpstreamCall } from "../dialects/index.js";

export interface HttpAgentConfig {
  id: string;
  url: string;
  headers?: Record<string, string>;
  protocol?: string;
}

const CANCEL_TIMEOUT_MS = 5000;
/** How long a failed card lookup is trusted before the next turn looks again. */
const REDISCOVER_AFTER_MS = 60_000;
/** How long a turn waits for its agent's very first card lookup before going ahead with the defaults. */
const FIRST_LOOKUP_WAIT_MS = 2000;

/**
 * An upstream A2A agent reached over HTTP. The router is its client: it forwards each turn (streaming
 * when the agent streams), parses its SSE with eventsource-parser, and turns every upstream failure
 * (refused connection, HTTP error, JSON-RPC error, a stream cut short) into an error the engine logs as
 * a final `failed` event.
 */
export class HttpAgent implements AgentConnector {
  info: AgentInfo;
  #cfg: HttpAgentConfig;
  #log: Logger;
  #found: DiscoveredAgent | undefined;
  #upstreamIds = new Map<string, string>();
  #discovery: Promise<void> | undefined;
  #triedAt = 0;

  constructor(cfg: HttpAgentConfig, logger: Logger) {
    this.#cfg = cfg;
    this.#log = logger;
    this.info = { id: cfg.id, name: cfg.id, description: `Upstream A2A agent at ${cfg.url}`, transport: "http", skills: [], streaming: true };
  }

  /** Reads the agent's card; concurrent callers share one lookup. */
  discover(): Promise<void> {
    this.#discovery ??= this.#discover().finally(() => (this.#discovery = undefined));
    return this.#discovery;
  }

  async #discover(): Promise<void> {
    this.#triedAt = Date.now();
    const found = await discoverAgent(this.#cfg.url, this.#cfg.headers, this.#cfg.protocol);
    this.#found = found;
    const card = found.card;
    const skills = Array.isArray(card?.skills) ? (card.skills as Array<Record<string, unknown>>) : [];
    this.info = {
      ...this.info,
      name: typeof card?.name === "string" ? card.name : this.#cfg.id,
      description: typeof card?.description === "string" ? card.description : this.info.description,
      streaming: found.streaming,
      skills: skills.map((s) => ({
        id: String(s.id ?? s.name ?? "default"),
        name: String(s.name ?? s.id ?? "default"),
        description: String(s.description ?? ""),
        ...(Array.isArray(s.tags) && { tags: s.tags.map(String) }),
        ...(Array.isArray(s.examples) && { examples: s.examples.map(String) }),
      })),
      ...(typeof card?.version === "string" && { version: card.version }),
      ...(card && { card }),
    };
    if (!card) this.#log.warn({ agent: this.#cfg.id, url: this.#cfg.url }, "no agent card found; assuming a v0.1 streaming agent");
  }

  isOnline(): boolean {
    return true;
  }

  async *execute(ctx: ExecuteContext): AsyncGenerator<AgentUpdate> {
    // Never let card lookups hold a turn for long: the first turn waits at most FIRST_LOOKUP_WAIT_MS for the
    // first lookup; a card-less agent is looked up again in the background every REDISCOVER_AFTER_MS; until
    // a card is found the defaults apply (v0.1, streaming, the configured URL).
    if (!this.#found) {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([this.discover(), new Promise<void>((r) => (timer = setTimeout(r, FIRST_LOOKUP_WAIT_MS)))]);
      clearTimeout(timer);
    } else if (!this.#found.card && !this.#discovery && Date.now() - this.#triedAt > REDISCOVER_AFTER_MS) {
      void this.discover();
    }
    const found = this.#found ?? { dialect: this.#cfg.protocol ? parseProtocol(this.#cfg.protocol) : "v0.1", streaming: true, endpoint: this.#cfg.url };
    const protocol = upstreamProtocol(found.dialect);
    const upstreamTaskId = this.#upstreamIds.get(ctx.task.id);
    const call = protocol.turn(ctx, found.streaming, upstreamTaskId);
    const res = await this.#post(call, ctx.signal, found.streaming);
    try {
      const type = res.headers.get("content-type") ?? "";
      if (type.includes("text/event-stream")) {
        let index = 0;
        for await (const result of this.#sseResults(res)) {
          this.#remember(ctx.task.id, protocol.upstreamTaskId?.(result));
          yield* protocol.fromStreamResult(result, { index: index++, followUp: upstreamTaskId !== undefined });
        }
      } else {
        const result = rpcResult(await res.json(), call.method);
        this.#remember(ctx.task.id, protocol.upstreamTaskId?.(result));
        yield* protocol.fromSendResult(result);
      }
    } finally {
      await res.body?.cancel().catch(() => undefined);
    }
  }

  async cancel(taskId: string): Promise<void> {
    const found = this.#found;
    if (!found) return;
    const call = upstreamProtocol(found.dialect).cancel(this.#upstreamIds.get(taskId) ?? taskId);
    const limit = deadline(CANCEL_TIMEOUT_MS);
    try {
      const res = await this.#post(call, limit.signal, false);
      await res.body?.cancel();
    } finally {
      limit.clear();
    }
  }

  #remember(taskId: string, upstreamId: string | undefined): void {
    if (upstreamId && upstreamId !== taskId) this.#upstreamIds.set(taskId, upstreamId);
  }

  async #post(call: UpstreamCall, signal: AbortSignal, stream: boolean): Promise<Response> {
    const endpoint = this.#found?.endpoint ?? this.#cfg.url;
    let res: Response;
    try {
      res = await fetch(endpoint, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          accept: stream ? "text/event-stream, application/json" : "application/json",
          ...this.#cfg.headers,
          ...call.headers,
        },
        body: JSON.stringify({ jsonrpc: "2.0", id: randomUUID(), method: call.method, params: call.params }),
        signal,
      });
    } catch (err) {
      if (signal.aborted) throw err;
      const cause = (err as { cause?: { message?: string; code?: string } }).cause;
      const why = cause?.message ?? (err as Error).message;
      // A reset or closed socket happened after connecting; anything else never reached the agent.
      const cut = /^(ECONNRESET|EPIPE|UND_ERR_SOCKET|UND_ERR_CLOSED)$/.test(cause?.code ?? "");
      throw new Error(
        cut
          ? `Upstream agent ${this.#cfg.id} closed the connection before answering: ${why}`
          : `Upstream agent ${this.#cfg.id} is unreachable: ${why}`,
      );
    }
    if (!res.ok) {
      const text = await res.text().catch(() => "");
      throw new Error(`Upstream agent ${this.#cfg.id} answered HTTP ${res.status}${text ? `: ${text.slice(0, 300)}` : ""}`);
    }
    return res;
  }

  async *#sseResults(res: Response): AsyncGenerator<unknown> {
    if (!res.body) throw new Error(`Upstream agent ${this.#cfg.id} sent an empty stream`);
    const events = res.body.pipeThrough(new TextDecoderStream()).pipeThrough(new EventSourceParserStream());
    const reader = events.getReader();
    try {
      yield* this.#readResults(reader);
    } finally {
      // Early return (turn canceled or ended): cancelling the parser's stream closes the connection too.
      await reader.cancel().catch(() => undefined);
    }
  }

  async *#readResults(reader: ReadableStreamDefaultReader<{ data: string }>): AsyncGenerator<unknown> {
    for (;;) {
      let next: Awaited<ReturnType<typeof reader.read>>;
      try {
        next = await reader.read();
      } catch (err) {
        // fetch reports a cut connection as "terminated": say what happened, in the agent's terms.
        const cause = (err as { cause?: { message?: string } }).cause?.message ?? (err as Error).message;
        throw new Error(`Upstream agent ${this.#cfg.id} closed its stream before a final status (${cause})`);
      }
      if (next.done) return;
      const event = next.value;
      let payload: unknown;
      try {
        payload = JSON.parse(event.data);
      } catch {
        throw new Error(`Upstream agent ${this.#cfg.id} sent an event that is not JSON`);
      }
      yield rpcResult(payload, "stream");
    }
  }
}

function rpcResult(payload: unknown, method: string): unknown {
  if (exceedsDepth(payload)) throw new Error(`Upstream agent sent JSON nested deeper than ${MAX_JSON_DEPTH} levels on ${method}`);
  const p = payload as { result?: unknown; error?: { code?: number; message?: string } };
  if (p?.error) throw new Error(`Upstream agent error ${p.error.code ?? ""} on ${method}: ${p.error.message ?? "unknown error"}`.replace("  ", " "));
  if (!p || !("result" in p)) throw new Error(`Upstream agent sent a response without result on ${method}`);
  return p.result;
}
