/**
 * Every method of the three JSON-RPC dialects and every route of the v1.0 REST binding, each with params that
 * are valid and reach the store (a real task, a stored push config), for tests/fuzz/params-fuzz.test.ts to
 * replace one field at a time with any JSON value.
 */

/** What the cases point at: tasks of each dialect and a push config stored on each. */
export interface Targets {
  v01: string;
  v03: string;
  v10: string;
  /** The webhook every push config names (a local server that answers 204). */
  hook: string;
}

export interface RpcCase {
  kind: "rpc";
  method: string;
  a2aVersion?: string;
  params: Record<string, unknown>;
}

export interface RestCase {
  kind: "rest";
  name: string;
  method: "GET" | "POST" | "DELETE";
  /** Path segments after `/agents/echo/rest`; a segment of `undefined` is filled from `path`. */
  path: Record<string, string>;
  build: (path: Record<string, string>) => string;
  /** Query parameters (GET) or the JSON body (POST). */
  params: Record<string, unknown>;
  query?: boolean;
}

export type ParamsCase = RpcCase | RestCase;

/** Members no method defines but some dialect once read: added to every case's params, one at a time. */
export const STRAY_MEMBERS = ["taskId", "id", "name", "configId", "pushNotificationConfigId", "tenant"];

/** Values that broke a store or leaked back before: always tried on every field. */
export const SPECIAL_VALUES: unknown[] = [null, 5, ["x", "completed", "y"], {}];

export function rpcCases(t: Targets): RpcCase[] {
  const push01 = { url: t.hook, id: "p1", token: "tok", authentication: { schemes: ["Bearer"], credentials: "c" } };
  const v01Send = {
    id: t.v01,
    sessionId: "s-fuzz",
    message: { role: "user", parts: [{ type: "text", text: "hi" }], metadata: {} },
    metadata: { agent: "echo" },
    historyLength: 1,
    pushNotification: push01,
  };
  const v03Message = { kind: "message", messageId: "m-fuzz", role: "user", parts: [{ kind: "text", text: "hi" }], contextId: "c-fuzz-03", metadata: {} };
  const v03Config = { url: t.hook, id: "p1", token: "tok", authentication: { schemes: ["Bearer"], credentials: "c" } };
  const v03Send = {
    message: v03Message,
    configuration: { blocking: true, historyLength: 1, acceptedOutputModes: ["text/plain"], pushNotificationConfig: v03Config },
    metadata: { agent: "echo" },
  };
  const v10Config = { url: t.hook, id: "p1", token: "tok", authentication: { scheme: "Bearer", credentials: "c" } };
  const v10Send = {
    message: { messageId: "m-fuzz", role: "ROLE_USER", parts: [{ text: "hi" }], contextId: "c-fuzz-10", metadata: {} },
    configuration: { acceptedOutputModes: ["text/plain"], historyLength: 1, returnImmediately: false, taskPushNotificationConfig: v10Config },
    metadata: { agent: "echo" },
  };
  const v10 = (method: string, params: Record<string, unknown>): RpcCase => ({ kind: "rpc", method, a2aVersion: "1.0", params });
  const rpc = (method: string, params: Record<string, unknown>): RpcCase => ({ kind: "rpc", method, params });
  return [
    rpc("tasks/send", v01Send),
    rpc("tasks/sendSubscribe", v01Send),
    rpc("tasks/get", { id: t.v01, historyLength: 2, metadata: {} }),
    rpc("tasks/cancel", { id: t.v01, metadata: {} }),
    rpc("tasks/resubscribe", { id: t.v01, historyLength: 1 }),
    rpc("task/resubscribe", { id: t.v01, historyLength: 1 }),
    rpc("tasks/pushNotification/set", { id: t.v01, pushNotificationConfig: push01 }),
    rpc("tasks/pushNotification/get", { id: t.v01, metadata: {} }),
    rpc("message/send", v03Send),
    rpc("message/stream", v03Send),
    rpc("tasks/get", { id: t.v03, historyLength: 2, metadata: {} }),
    rpc("tasks/cancel", { id: t.v03 }),
    rpc("tasks/resubscribe", { id: t.v03 }),
    rpc("tasks/pushNotificationConfig/set", { taskId: t.v03, pushNotificationConfig: v03Config }),
    rpc("tasks/pushNotificationConfig/get", { id: t.v03, pushNotificationConfigId: "p1", metadata: {} }),
    rpc("tasks/pushNotificationConfig/list", { id: t.v03, metadata: {} }),
    rpc("tasks/pushNotificationConfig/delete", { id: t.v03, pushNotificationConfigId: "p1" }),
    rpc("agent/getAuthenticatedExtendedCard", {}),
    v10("SendMessage", v10Send),
    v10("SendStreamingMessage", v10Send),
    v10("GetTask", { id: t.v10, historyLength: 1 }),
    v10("ListTasks", {
      contextId: "c-fuzz-10",
      status: "TASK_STATE_COMPLETED",
      pageSize: 5,
      pageToken: "",
      historyLength: 1,
      statusTimestampAfter: "2020-01-01T00:00:00Z",
      includeArtifacts: true,
    }),
    v10("CancelTask", { id: t.v10, metadata: {} }),
    v10("SubscribeToTask", { id: t.v10 }),
    v10("CreateTaskPushNotificationConfig", { taskId: t.v10, ...v10Config }),
    v10("GetTaskPushNotificationConfig", { taskId: t.v10, id: "p1" }),
    v10("ListTaskPushNotificationConfigs", { taskId: t.v10, pageSize: 5, pageToken: "" }),
    v10("DeleteTaskPushNotificationConfig", { taskId: t.v10, id: "p1" }),
    v10("GetExtendedAgentCard", {}),
  ];
}

export function restCases(t: Targets): RestCase[] {
  const send = rpcCases(t).find((c) => c.method === "SendMessage")!.params;
  const task =
    (suffix = "") =>
    (p: Record<string, string>) =>
      `/tasks/${p.task}${suffix}`;
  const config = (p: Record<string, string>) => `/tasks/${p.task}/pushNotificationConfigs/${p.config}`;
  const ids = { task: t.v10 };
  return [
    { kind: "rest", name: "message:send", method: "POST", path: {}, build: () => "/message:send", params: send },
    { kind: "rest", name: "message:stream", method: "POST", path: {}, build: () => "/message:stream", params: send },
    {
      kind: "rest",
      name: "list tasks",
      method: "GET",
      path: {},
      build: () => "/tasks",
      query: true,
      params: {
        contextId: "c-fuzz-10",
        status: "TASK_STATE_COMPLETED",
        pageSize: "5",
        pageToken: "",
        historyLength: "1",
        statusTimestampAfter: "2020-01-01T00:00:00Z",
        includeArtifacts: "true",
      },
    },
    { kind: "rest", name: "get task", method: "GET", path: ids, build: task(), query: true, params: { historyLength: "1" } },
    { kind: "rest", name: "cancel", method: "POST", path: ids, build: task(":cancel"), params: {} },
    { kind: "rest", name: "subscribe", method: "GET", path: ids, build: task(":subscribe"), params: {} },
    {
      kind: "rest",
      name: "create push config",
      method: "POST",
      path: ids,
      build: task("/pushNotificationConfigs"),
      params: { id: "p1", url: t.hook, token: "tok", authentication: { scheme: "Bearer", credentials: "c" } },
    },
    { kind: "rest", name: "list push configs", method: "GET", path: ids, build: task("/pushNotificationConfigs"), params: {} },
    { kind: "rest", name: "get push config", method: "GET", path: { ...ids, config: "p1" }, build: config, params: {} },
    { kind: "rest", name: "delete push config", method: "DELETE", path: { ...ids, config: "p1" }, build: config, params: {} },
  ];
}

/** Every path into `value` (members and array items, nested), as lists of keys. */
export function fieldPaths(value: unknown, prefix: Array<string | number> = []): Array<Array<string | number>> {
  if (!value || typeof value !== "object") return [];
  const out: Array<Array<string | number>> = [];
  for (const key of Object.keys(value)) {
    const k = Array.isArray(value) ? Number(key) : key;
    const path = [...prefix, k];
    out.push(path, ...fieldPaths((value as Record<string, unknown>)[key], path));
  }
  return out;
}

/** A deep copy of `value` with the member at `path` set to `replacement` (created when missing). */
export function withField(value: Record<string, unknown>, path: Array<string | number>, replacement: unknown): Record<string, unknown> {
  const copy = structuredClone(value);
  let at: Record<string | number, unknown> = copy;
  for (const key of path.slice(0, -1)) at = at[key] as Record<string | number, unknown>;
  at[path[path.length - 1]!] = replacement;
  return copy;
}
