import { EventSourceParserStream } from "eventsource-parser/stream";

/** Test client helpers: plain fetch, as any A2A client would do it. */

export type Json = Record<string, any>;

export async function rpc(
  url: string,
  method: string,
  params: unknown,
  opts: { path?: string; headers?: Record<string, string>; id?: string | number } = {},
): Promise<Json> {
  const res = await fetch(url + (opts.path ?? "/rpc"), {
    method: "POST",
    headers: { "content-type": "application/json", ...opts.headers },
    body: JSON.stringify({ jsonrpc: "2.0", id: opts.id ?? "1", method, params }),
  });
  return (await res.json()) as Json;
}

export async function post(url: string, body: string, headers: Record<string, string> = {}): Promise<{ status: number; body: any; headers: Headers }> {
  const res = await fetch(url, { method: "POST", headers: { "content-type": "application/json", ...headers }, body });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined, headers: res.headers };
}

export interface SseEvent {
  id?: string;
  data: Json;
}

/** An open SSE stream: read events one by one or to the end. */
export class SseStream {
  readonly response: Response;
  #reader: ReadableStreamDefaultReader<{ id?: string; data: string; event?: string }>;
  readonly comments: string[] = [];
  #commentWaiters: Array<() => void> = [];
  readonly controller: AbortController;

  constructor(response: Response, controller: AbortController) {
    this.response = response;
    this.controller = controller;
    const parser = new EventSourceParserStream({
      onComment: (c) => {
        this.comments.push(c);
        for (const w of this.#commentWaiters.splice(0)) w();
      },
    });
    this.#reader = response.body!.pipeThrough(new TextDecoderStream()).pipeThrough(parser).getReader();
  }

  #pending: ReturnType<ReadableStreamDefaultReader<{ id?: string; data: string }>["read"]> | undefined;

  /** The next event, or undefined when the server closed the stream. */
  async next(): Promise<SseEvent | undefined> {
    const pending = this.#pending ?? this.#reader.read();
    this.#pending = undefined;
    const { value, done } = await pending;
    if (done) return undefined;
    return { id: value.id, data: JSON.parse(value.data) };
  }

  /** Every remaining event until the server closes the stream. */
  async all(): Promise<SseEvent[]> {
    const out: SseEvent[] = [];
    for (let e = await this.next(); e; e = await this.next()) out.push(e);
    return out;
  }

  /** Resolves when a comment (heartbeat) arrives. */
  nextComment(): Promise<void> {
    // Comments are parsed only while reading: start the next read (next() picks it up).
    this.#pending ??= this.#reader.read();
    return new Promise((r) => this.#commentWaiters.push(r));
  }

  /** Drops the connection, as a client that goes away. */
  abort(): void {
    this.controller.abort();
    this.#reader.cancel().catch(() => undefined);
  }
}

export async function openStream(
  url: string,
  method: string,
  params: unknown,
  opts: { path?: string; headers?: Record<string, string>; id?: string } = {},
): Promise<SseStream> {
  const controller = new AbortController();
  const res = await fetch(url + (opts.path ?? "/rpc"), {
    method: "POST",
    headers: { "content-type": "application/json", accept: "text/event-stream", ...opts.headers },
    body: JSON.stringify({ jsonrpc: "2.0", id: opts.id ?? "s", method, params }),
    signal: controller.signal,
  });
  if (!(res.headers.get("content-type") ?? "").includes("text/event-stream")) {
    throw new Error(`expected an SSE stream, got ${res.status}: ${await res.text()}`);
  }
  return new SseStream(res, controller);
}

export function userMessage(text: string) {
  return { role: "user", parts: [{ type: "text", text }] };
}

/** Text of a v0.1 status event's message. */
export function statusText(e: SseEvent): string {
  const parts = e.data.result?.status?.message?.parts ?? [];
  return parts.map((p: Json) => p.text ?? "").join("");
}

export async function getJson(url: string, headers: Record<string, string> = {}): Promise<Json> {
  return (await (await fetch(url, { headers })).json()) as Json;
}
