import { createParser } from "eventsource-parser";
import type { Agent, RegisteredEvent } from "../../agents/sdk/index.js";

/** One v0.1 stream event as a test reads it. */
export interface V01StreamEvent {
  seq?: number;
  result: {
    id: string;
    status?: { state: string; message?: { parts: Array<{ type: string; text?: string }> } };
    artifact?: { name?: string; parts: Array<{ type: string; text?: string; file?: unknown }>; index?: number; append?: boolean; lastChunk?: boolean };
    final?: boolean;
    metadata?: Record<string, unknown>;
  };
}

let rpcId = 1;

export async function rpc<T = any>(url: string, method: string, params: unknown): Promise<T> {
  const res = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: rpcId++, method, params }),
  });
  const body = (await res.json()) as { result?: T; error?: { message: string } };
  if (body.error) throw new Error(`${method}: ${body.error.message}`);
  return body.result as T;
}

/**
 * Opens a v0.1 stream and hands each event to `onEvent` as it arrives; resolves with all events once
 * the router closes the stream.
 */
export async function stream(
  url: string,
  method: string,
  params: unknown,
  onEvent: (event: V01StreamEvent) => void | Promise<void> = () => {},
): Promise<V01StreamEvent[]> {
  const res = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "text/event-stream" },
    body: JSON.stringify({ jsonrpc: "2.0", id: rpcId++, method, params }),
  });
  if (!res.headers.get("content-type")?.startsWith("text/event-stream")) {
    throw new Error(`${method} did not open a stream: ${await res.text()}`);
  }
  const events: V01StreamEvent[] = [];
  const pending: V01StreamEvent[] = [];
  const parser = createParser({
    onEvent(e) {
      const body = JSON.parse(e.data);
      if (body.error) throw new Error(body.error.message);
      pending.push({ ...(e.id !== undefined && { seq: Number(e.id) }), result: body.result });
    },
  });
  const decoder = new TextDecoder();
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
    parser.feed(decoder.decode(chunk, { stream: true }));
    while (pending.length > 0) {
      const event = pending.shift()!;
      events.push(event);
      await onEvent(event);
    }
  }
  return events;
}

export function text(event: V01StreamEvent): string {
  const parts = event.result.status?.message?.parts ?? event.result.artifact?.parts ?? [];
  return parts.map((p) => (p.type === "text" ? p.text : "")).join("");
}

export function sendParams(agent: string, message: string, extra: { id?: string; metadata?: Record<string, unknown> } = {}) {
  return {
    id: extra.id ?? crypto.randomUUID(),
    message: { role: "user", parts: [{ type: "text", text: message }] },
    metadata: { agent, ...extra.metadata },
  };
}

/** Resolves on the agent's next `registered` event. */
export function nextRegistration(agent: Agent): Promise<RegisteredEvent> {
  return new Promise((resolve) => {
    const listener = (event: RegisteredEvent) => {
      agent.off("registered", listener);
      resolve(event);
    };
    agent.on("registered", listener);
  });
}

/** A promise with its resolve exposed: a gate a handler waits on. */
export function deferred<T = void>() {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

/** A logger that keeps what it is told, for asserting on warnings without printing them. */
export function memoryLogger() {
  const lines: string[] = [];
  const keep = (level: string) => (msg: string) => lines.push(`${level}: ${msg}`);
  return { lines, debug: keep("debug"), info: keep("info"), warn: keep("warn"), error: keep("error") };
}
