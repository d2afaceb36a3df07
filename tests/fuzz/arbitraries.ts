import fc from "fast-check";
import { DIALECTS } from "../../router/dialects/index.js";

/**
 * Generators for the fuzz tests: JSON-RPC requests in every dialect built from valid templates and then
 * mutated (a subtree replaced, removed or wrapped), plus garbage; hub frames the same way.
 */

/** The seed every fuzz run uses unless FUZZ_SEED says otherwise (a failure prints the seed and path to replay). */
export const FUZZ_SEED = Number(process.env.FUZZ_SEED ?? 20261123);

/** Every method name the dialects bind, plus near misses. */
export const RPC_METHODS: string[] = [...new Set(DIALECTS.flatMap((d) => Object.keys(d.methods)))];

const text = fc.string({ maxLength: 12 });
/** "t-recent" is replaced at run time by a task the run created (see withRecentTask). */
export const RECENT_TASK = "t-recent";
const taskId = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(RECENT_TASK, "t-known", "t-2") },
  { weight: 1, arbitrary: fc.oneof(fc.constant(""), fc.uuid(), text) },
);

const v01Message = text.map((t) => ({ role: "user", parts: [{ type: "text", text: t }] }));
const v03Message = fc.tuple(text, fc.uuid()).map(([t, id]) => ({ kind: "message", messageId: id, role: "user", parts: [{ kind: "text", text: t }] }));
const v10Message = fc.tuple(text, fc.uuid()).map(([t, id]) => ({ messageId: id, role: "ROLE_USER", parts: [{ text: t }] }));
const agentMeta = fc.constantFrom({ agent: "echo" }, { agent: "echo", skill: "echo" }, { agent: "nope" }, {});
const hookUrl = fc.constantFrom("http://127.0.0.1:9/hook", "ftp://x/y", "not a url", "https://[::1]/");

/** Well-formed params for a method (as well as the dialect allows guessing), before mutation. */
function template(method: string): fc.Arbitrary<unknown> {
  const isV10 = /^[A-Z]/.test(method);
  const isV03 = method.startsWith("message/") || method.startsWith("tasks/pushNotificationConfig/") || method.startsWith("agent/");
  if (/send|stream|Send/i.test(method) && !/Subscribe$|resubscribe/.test(method)) {
    if (isV10)
      return fc.record(
        {
          message: v10Message,
          metadata: agentMeta,
          configuration: fc.option(fc.record({ blocking: fc.boolean(), historyLength: fc.integer({ min: -1, max: 5 }) }), { nil: undefined }),
        },
        { requiredKeys: ["message"] },
      );
    if (isV03) return fc.record({ message: v03Message, metadata: agentMeta });
    return fc.record(
      {
        id: taskId,
        sessionId: fc.option(text, { nil: undefined }),
        message: v01Message,
        metadata: agentMeta,
        pushNotification: fc.option(fc.record({ url: hookUrl }), { nil: undefined }),
      },
      { requiredKeys: ["id", "message"] },
    );
  }
  if (/push/i.test(method)) {
    const key = isV10 || isV03 ? "taskId" : "id";
    return fc.record(
      {
        [key]: taskId,
        name: taskId.map((t) => `tasks/${t}/pushNotificationConfigs/default`),
        pushNotificationConfigId: fc.constantFrom("default", "x"),
        pushNotificationConfig: fc.record({ url: hookUrl, token: text }),
        config: fc.record({ url: hookUrl }),
      },
      { requiredKeys: [key] },
    );
  }
  if (method === "ListTasks") {
    return fc.record(
      {
        contextId: text,
        pageSize: fc.integer({ min: -5, max: 200 }),
        pageToken: text,
        status: fc.constantFrom("TASK_STATE_COMPLETED", "bogus"),
        statusTimestampAfter: fc.constantFrom("2020-01-01T00:00:00Z", "yesterday"),
        historyLength: fc.integer({ min: -1, max: 3 }),
        includeArtifacts: fc.boolean(),
      },
      { requiredKeys: [] },
    );
  }
  return fc.record(
    { id: taskId, name: taskId.map((t) => `tasks/${t}`), historyLength: fc.integer({ min: -2, max: 10 }), metadata: fc.object({ maxDepth: 1 }) },
    { requiredKeys: ["id"] },
  );
}

/** A JSON value of bounded size, for replacement subtrees. */
const anyJson = fc.jsonValue({ maxDepth: 3 });

/** Text of any JSON value (String() throws on objects without a prototype). */
const asText = (v: unknown): string => (v && typeof v === "object" ? JSON.stringify(v) : String(v));

/** Applies one mutation at a path chosen by `pick` (a number walked down the structure). */
function mutate(value: unknown, pick: number, kind: number, replacement: unknown): unknown {
  const copy = structuredClone(value);
  const paths: Array<{ parent: Record<string, unknown> | unknown[]; key: string | number }> = [];
  const walk = (v: unknown, depth: number) => {
    if (depth > 6 || !v || typeof v !== "object") return;
    for (const key of Object.keys(v)) {
      const k = Array.isArray(v) ? Number(key) : key;
      paths.push({ parent: v as Record<string, unknown>, key: k });
      walk((v as Record<string, unknown>)[key], depth + 1);
    }
  };
  walk(copy, 0);
  if (paths.length === 0) return replacement;
  const { parent, key } = paths[pick % paths.length]!;
  const p = parent as Record<string | number, unknown>;
  if (kind === 0) p[key] = replacement;
  else if (kind === 1) delete p[key];
  else if (kind === 2) p[key] = [p[key]];
  else if (kind === 3) p[key] = asText(p[key]);
  // A new member (an array grows by one: a numeric key would make it sparse and huge).
  else if (Array.isArray(p)) p.push(replacement);
  else (p as Record<string, unknown>)[asText(replacement).slice(0, 8) || "__proto__"] = replacement;
  return copy;
}

/** Params: the template, a mutated template (one to three mutations), or anything at all. */
function params(method: string): fc.Arbitrary<unknown> {
  const mutation = fc.tuple(fc.nat(), fc.integer({ min: 0, max: 4 }), anyJson);
  return fc.oneof(
    { weight: 3, arbitrary: template(method) },
    {
      weight: 6,
      arbitrary: fc
        .tuple(template(method), fc.array(mutation, { minLength: 1, maxLength: 3 }))
        .map(([t, ms]) => ms.reduce((v, [pick, kind, r]) => mutate(v, pick, kind, r), t)),
    },
    { weight: 1, arbitrary: anyJson },
  );
}

const rpcId = fc.oneof(
  { weight: 16, arbitrary: fc.oneof(fc.integer(), fc.string({ maxLength: 6 })) },
  { weight: 2, arbitrary: fc.constantFrom(null, undefined) },
  { weight: 1, arbitrary: fc.oneof(fc.constant({ x: 1 }), fc.double(), fc.boolean()) },
);

/** Per-method params arbitraries, built once (chain() would build them per case, which is slow). */
const ODD_METHODS = ["tasks/Send", "message/send ", "__proto__", "constructor", "toString", "hasOwnProperty", ""];
const methodAndParams = fc.oneof(
  { weight: 9, arbitrary: fc.oneof(...RPC_METHODS.map((m) => fc.tuple(fc.constant(m), params(m)))) },
  { weight: 1, arbitrary: fc.tuple(fc.oneof(fc.string({ maxLength: 10 }), fc.constantFrom(...ODD_METHODS)), params("tasks/get")) },
);

/** One JSON-RPC request object (sometimes subtly not one). */
export const rpcRequest: fc.Arbitrary<unknown> = fc
  .tuple(methodAndParams, rpcId, fc.oneof({ weight: 49, arbitrary: fc.constant("2.0") }, { weight: 1, arbitrary: anyJson }), fc.nat(29))
  .map(([[method, p], id, jsonrpc, shape]) => {
    const req: Record<string, unknown> = { jsonrpc, method, params: p };
    if (id !== undefined) req.id = id;
    if (shape === 0) delete req.params;
    if (shape === 1) req.method = 42;
    return req;
  });

/** A whole body: one request, a batch, or JSON that is not a request. */
export const rpcBody: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 36, arbitrary: rpcRequest },
  { weight: 2, arbitrary: fc.array(rpcRequest, { minLength: 0, maxLength: 4 }) },
  { weight: 1, arbitrary: anyJson },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      { __proto__: { method: "tasks/get" } },
      JSON.parse('{"__proto__":{"polluted":1},"jsonrpc":"2.0","id":1,"method":"tasks/get","params":{"id":"x"}}'),
      { jsonrpc: "2.0", id: 1, method: "tasks/get", params: { id: "x", constructor: { prototype: { x: 1 } } } },
    ),
  },
);

/** Headers a transport passes in: A2A-Version and Last-Event-ID, sometimes odd. */
export const callHeaders = fc.record(
  {
    a2aVersion: fc.oneof(
      { weight: 8, arbitrary: fc.constantFrom("1.0", "0.3", "1.0", "") },
      { weight: 1, arbitrary: fc.oneof(fc.constantFrom("1", "2.0", "1.0.0", "0.1"), fc.string({ maxLength: 5 })) },
    ),
    lastEventId: fc.oneof(
      { weight: 4, arbitrary: fc.constantFrom("0", "1", "2", "99") },
      { weight: 1, arbitrary: fc.oneof(fc.constantFrom("-1", "1e3", "abc", ""), fc.string({ maxLength: 5 })) },
    ),
    pathAgentId: fc.constantFrom("echo", "nope", "ECHO"),
  },
  { requiredKeys: [] },
);

const HUB_METHODS = ["agent.register", "heartbeat", "task.status", "task.artifact", "task.complete", "task.execute", "task.cancel", "connection.established"];
const wirePart = fc.oneof(
  text.map((t) => ({ type: "text", text: t })),
  fc.constant({ type: "data", data: { a: 1 } }),
  fc.constant({ kind: "file", file: { uri: "x" } }),
);
const hubParams: Record<string, fc.Arbitrary<unknown>> = {
  "agent.register": fc.record(
    {
      agent_name: fc.oneof(fc.constantFrom("fuzz-agent", "echo", ""), text),
      auth_token: fc.option(text, { nil: undefined }),
      skills: fc.option(fc.array(fc.record({ name: text })), { nil: undefined }),
      streaming: fc.boolean(),
    },
    { requiredKeys: ["agent_name"] },
  ),
  "task.status": fc.record({
    task_id: taskId,
    status: fc.record({
      state: fc.constantFrom("working", "completed", "bogus"),
      message: fc.record({ role: fc.constant("agent"), parts: fc.array(wirePart, { maxLength: 2 }) }),
    }),
    final: fc.boolean(),
  }),
  "task.artifact": fc.record({
    task_id: taskId,
    artifact: fc.record({
      name: text,
      parts: fc.array(wirePart, { maxLength: 2 }),
      index: fc.integer({ min: -1, max: 3 }),
      append: fc.boolean(),
      lastChunk: fc.boolean(),
    }),
  }),
  "task.complete": fc.record({
    task_id: taskId,
    status: fc.record({ state: fc.constantFrom("completed", "failed", "canceled", "input-required", "working") }),
    final: fc.constant(true),
    metadata: fc.option(fc.record({ cost: fc.object({ maxDepth: 1 }) }), { nil: undefined }),
  }),
};

const hubMethodAndParams = fc.oneof(...HUB_METHODS.map((m) => fc.tuple(fc.constant(m), hubParams[m] ?? fc.object({ maxDepth: 1 }))));

/** One hub frame as sent on the wire: mostly JSON objects from templates, mutated; sometimes not JSON at all. */
export const hubFrame: fc.Arbitrary<string> = fc.oneof(
  {
    weight: 8,
    arbitrary: fc
      .tuple(hubMethodAndParams, rpcId, fc.nat(9), fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 4 }), anyJson), { maxLength: 2 }))
      .map(([[method, p], id, shape, ms]) => {
        const frame: Record<string, unknown> = { jsonrpc: "2.0", method, params: ms.reduce((v, [pick, kind, r]) => mutate(v, pick, kind, r), p) };
        if (id !== undefined) frame.id = id;
        if (shape === 0) return JSON.stringify({ jsonrpc: "2.0", id, result: { accepted: true } });
        if (shape === 1) return JSON.stringify({ jsonrpc: "2.0", id: typeof id === "string" ? id : "x", error: { code: 1, message: "no" } });
        if (shape === 2) frame.method = 7;
        return JSON.stringify(frame);
      }),
  },
  { weight: 1, arbitrary: anyJson.map((v) => JSON.stringify(v)) },
  { weight: 1, arbitrary: fc.oneof(fc.string({ maxLength: 20 }), fc.constantFrom("{", "[1,", "\u0000", '{"id":1,"method":"heartbeat"', "[]", "null", "{}")) },
);

/** Replaces every RECENT_TASK string in a body by one of the ids the run has seen (deterministic pick). */
export function withRecentTask(body: unknown, known: readonly string[], pick: number): unknown {
  if (known.length === 0) return body;
  const id = known[pick % known.length]!;
  const walk = (v: unknown): unknown => {
    if (v === RECENT_TASK) return id;
    if (typeof v === "string" && v.includes(RECENT_TASK)) return v.replace(RECENT_TASK, id);
    if (Array.isArray(v)) return v.map(walk);
    if (v && typeof v === "object") return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walk(x)]));
    return v;
  };
  return walk(body);
}

/** Task ids a successful answer names (v0.1 `id`, v0.3 `id`/`taskId`, v1.0 `task.id`), to aim later cases at. */
export function taskIdsIn(body: unknown): string[] {
  const out: string[] = [];
  for (const r of Array.isArray(body) ? body : [body]) {
    const result = (r as { result?: Record<string, any> } | undefined)?.result;
    if (!result || typeof result !== "object") continue;
    for (const v of [result.id, result.taskId, result.task?.id]) if (typeof v === "string" && v) out.push(v);
  }
  return out;
}
