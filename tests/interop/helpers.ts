import { randomUUID } from "node:crypto";
import { Role, type Message, type Part, type StreamResponse } from "@a2a-js/sdk";
import { connectAgent } from "../../agents/sdk/index.js";

/** A user message in @a2a-js/sdk's v1.0 types (every member present, as its TypeScript types want). */
export function sdkMessage(text: string, extra: Partial<Message> = {}): Message {
  return {
    messageId: randomUUID(),
    contextId: "",
    taskId: "",
    role: Role.ROLE_USER,
    parts: [textPart(text)],
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
    ...extra,
  };
}

export function textPart(text: string): Part {
  return { content: { $case: "text", value: text }, metadata: undefined, filename: "", mediaType: "" };
}

/** The text parts of SDK parts, joined. */
export function sdkText(parts: Part[] | undefined): string {
  return (parts ?? []).map((p) => (p.content?.$case === "text" ? p.content.value : "")).join("");
}

export async function collect<T>(it: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const x of it) out.push(x);
  return out;
}

/** The `$case` of each StreamResponse, for asserting a stream's shape at a glance. */
export function cases(events: StreamResponse[]): string[] {
  return events.map((e) => e.payload?.$case ?? "none");
}

/** A promise the test resolves by hand (a hub agent waits on it mid-task). */
export class Gate {
  open!: () => void;
  readonly opened = new Promise<void>((r) => (this.open = r));
}

/**
 * A hub agent (the router's own agent SDK over WebSocket) whose "gated" skill streams "step 1", waits
 * until the test opens the gate named by the message text (or the task is canceled), then "step 2".
 */
export async function gatedHubAgent(routerUrl: string, name: string, gates: Map<string, Gate>) {
  const agent = connectAgent({ url: `${routerUrl}/hub`, name, reconnect: false, logger: quietLogger });
  agent.skill({ name: "gated", description: "streams, waits for the test, streams again", tags: ["test"] }, async function* (text, ctx) {
    yield "step 1";
    const gate = gates.get(text) ?? new Gate();
    gates.set(text, gate);
    await Promise.race([gate.opened, new Promise((r) => ctx.signal.addEventListener("abort", r, { once: true }))]);
    if (ctx.signal.aborted) return;
    yield " step 2";
  });
  await agent.ready;
  return agent;
}

export const quietLogger = { debug() {}, info() {}, warn() {}, error() {} };

/** Polls `check` on each macrotask until it holds (waiting on a condition, never on a fixed delay). */
export async function until(check: () => boolean | Promise<boolean>, what: string, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setImmediate(r));
  }
}
