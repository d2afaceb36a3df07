import { afterAll, beforeAll, describe, expect, test } from "@jest/globals";
import fc from "fast-check";
import { createServer, type Server } from "node:http";
import { mkdtempSync, rmSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pino } from "pino";
import type { RunningRouter } from "../../router/index.js";
import { openStore } from "../../router/store/index.js";
import { leakIn } from "../edge/helpers.js";
import { deleteKeys, REDIS_URL } from "../helpers/redis.js";
import { testRouter } from "../helpers/router.js";
import { FUZZ_SEED } from "./arbitraries.js";
import { checkResponse } from "./checks.js";
import { fieldPaths, restCases, rpcCases, SPECIAL_VALUES, STRAY_MEMBERS, withField, type RestCase, type RpcCase, type Targets } from "./params-cases.js";

/**
 * Every params field of every method of the three JSON-RPC dialects and of every REST route, replaced one at a
 * time with JSON values (the ones that broke a store before, then seeded random ones), on SQLite and on Redis:
 * no answer may be -32603 or a 500, no error may be logged, no id the router answers with may be anything but
 * a string, and what is stored stays readable (CONTRACT 12; SECURITY.md rows 18, 20, 29). Replay with
 * FUZZ_SEED; `FUZZ_PARAMS_VALUES` random values per field (default 1).
 */

const RANDOM_VALUES = Number(process.env.FUZZ_PARAMS_VALUES ?? 1);
/** Generous, for a loaded 2-core box (a few seconds each when it is not; the verdict never depends on it). */
const TIMEOUT_MS = 300_000;
/** The streaming twins of a send read their params with the send's code: the special values are enough there. */
const STREAMING_TWINS = new Set(["tasks/sendSubscribe", "message/stream", "SendStreamingMessage"]);
/** Members whose values are ids the router chose or keeps: an answer carrying a non-string one echoes bad input. */
const ID_MEMBERS = new Set(["id", "taskId", "contextId", "sessionId", "messageId", "pushNotificationConfigId", "artifactId"]);
/** Members whose content is the client's own (echoed as sent): not read for ids. */
const FREE_MEMBERS = new Set(["metadata", "data", "extensions", "params"]);

/** Seeded random JSON values, the same for a given seed and field. */
function randomValues(seed: number): unknown[] {
  return fc.sample(fc.jsonValue({ maxDepth: 2 }), { seed, numRuns: RANDOM_VALUES });
}

/** Throws when an answer names an id that is not a string (outside the client's own metadata and data). */
function checkIds(value: unknown, where: string, path = ""): void {
  if (!value || typeof value !== "object") return;
  for (const [key, member] of Object.entries(value)) {
    if (FREE_MEMBERS.has(key)) continue;
    if (ID_MEMBERS.has(key) && !Array.isArray(value) && typeof member !== "string" && path.includes("result")) {
      throw new Error(`${where}: ${path}.${key} is ${JSON.stringify(member)}, not a string`);
    }
    checkIds(member, where, `${path}.${key}`);
  }
}

for (const kind of ["sqlite", "redis"] as const) {
  describe(`every params field on ${kind}`, () => {
    let router: RunningRouter;
    let hook: Server;
    let dir: string;
    const prefix = `a2a-router-test:params-fuzz:${process.pid}:`;
    const errors: string[] = [];
    let targets: Targets;
    let requests = 0;

    beforeAll(async () => {
      hook = createServer((req, res) => req.resume().on("end", () => res.writeHead(204).end()));
      await new Promise<void>((resolve) => hook.listen(0, "127.0.0.1", resolve));
      dir = mkdtempSync(join(tmpdir(), "params-fuzz-"));
      const store = kind === "sqlite" ? await openStore(`sqlite:${join(dir, "router.db")}`) : await openStore(REDIS_URL, { prefix });
      // Error-level lines are failures: the router failed on its own, whatever the client saw.
      const logger = pino({ level: "error" }, { write: (line: string) => void errors.push(line) });
      router = await testRouter({ store, logger, eliza: false, config: { defaultAgent: "echo" } });
      const hookUrl = `http://127.0.0.1:${(hook.address() as AddressInfo).port}/hook`;
      const v01 = await rpc("tasks/send", { id: "t-fuzz-01", message: { role: "user", parts: [{ type: "text", text: "hi" }] } });
      const v03 = await rpc("message/send", { message: { kind: "message", messageId: "m-03", role: "user", parts: [{ kind: "text", text: "hi" }] } });
      const v10 = await rpc("SendMessage", { message: { messageId: "m-10", role: "ROLE_USER", parts: [{ text: "hi" }] } }, "1.0");
      targets = { v01: (v01 as any).result.id, v03: (v03 as any).result.id, v10: (v10 as any).result.task.id, hook: hookUrl };
    }, TIMEOUT_MS);

    afterAll(async () => {
      await router?.close();
      await new Promise((resolve) => hook.close(resolve));
      rmSync(dir, { recursive: true, force: true });
      if (kind === "redis") await deleteKeys(prefix);
    });

    async function rpc(method: string, params: unknown, a2aVersion?: string): Promise<unknown> {
      const text = await post("/rpc", { jsonrpc: "2.0", id: 1, method, params }, a2aVersion);
      return JSON.parse(text);
    }

    /** Posts a JSON-RPC request; the answer's text (SSE frames or JSON), checked for status and leaks. */
    async function post(path: string, body: unknown, a2aVersion?: string): Promise<string> {
      requests++;
      const headers: Record<string, string> = { "content-type": "application/json" };
      if (a2aVersion) headers["a2a-version"] = a2aVersion;
      const res = await fetch(router.url + path, { method: "POST", headers, body: JSON.stringify(body), signal: AbortSignal.timeout(10_000) });
      const text = await res.text();
      if (res.status !== 200) throw new Error(`HTTP ${res.status}: ${text.slice(0, 300)}`);
      return text;
    }

    /** Every JSON-RPC response in an answer (one JSON body, or the SSE stream's data lines). */
    function responses(text: string): unknown[] {
      if (!text.startsWith("{"))
        return text
          .split("\n")
          .filter((l) => l.startsWith("data:"))
          .map((l) => JSON.parse(l.slice(5)));
      return [JSON.parse(text)];
    }

    function failIfLogged(where: string): void {
      if (errors.length) throw new Error(`${where}: the router logged an error: ${errors.splice(0).join("\n").slice(0, 600)}`);
    }

    async function callRpc(c: RpcCase, params: Record<string, unknown>, where: string): Promise<void> {
      const text = await post("/rpc", { jsonrpc: "2.0", id: 1, method: c.method, params }, c.a2aVersion);
      for (const r of responses(text)) {
        checkResponse(r, where);
        checkIds(r, where);
      }
      failIfLogged(where);
    }

    test(
      "the templates are accepted as they are",
      async () => {
        for (const c of rpcCases(targets)) {
          const [r] = responses(await post("/rpc", { jsonrpc: "2.0", id: 1, method: c.method, params: c.params }, c.a2aVersion)) as Array<{
            error?: { code: number; message: string };
          }>;
          // Past their validation: a task that already ended may refuse a cancel or a v1.0 subscription.
          if (r?.error) expect([c.method, r.error.code]).toEqual([c.method, expect.not.arrayContaining([-32602, -32603])]);
        }
        failIfLogged("templates");
      },
      TIMEOUT_MS,
    );

    test(
      "JSON-RPC: every field of every method, any JSON value",
      async () => {
        let n = 0;
        for (const [i, c] of rpcCases(targets).entries()) {
          const paths = [...fieldPaths(c.params), ...STRAY_MEMBERS.filter((m) => !(m in c.params)).map((m) => [m])];
          for (const [j, path] of paths.entries()) {
            const random = STREAMING_TWINS.has(c.method) ? [] : randomValues(FUZZ_SEED + i * 1000 + j);
            for (const value of [...SPECIAL_VALUES, ...random]) {
              const where = `${kind} ${c.method} ${path.join(".")} = ${JSON.stringify(value)?.slice(0, 60)}`;
              await callRpc(c, withField(c.params, path, value), where);
              n++;
            }
          }
        }
        expect(n).toBeGreaterThan(1000);
      },
      TIMEOUT_MS,
    );

    test(
      "REST: every path segment, query parameter and body field, any JSON value",
      async () => {
        const agent = `${router.url}/agents/echo/rest`;
        const call = async (c: RestCase, path: Record<string, string>, params: Record<string, unknown>, where: string) => {
          requests++;
          let url = agent + c.build(path);
          let body: string | undefined;
          if (c.query) {
            const q = new URLSearchParams();
            for (const [k, v] of Object.entries(params))
              for (const one of Array.isArray(v) ? v : [v]) q.append(k, typeof one === "string" ? one : JSON.stringify(one));
            url += `?${q}`;
          } else if (c.method === "POST") body = JSON.stringify(params);
          const res = await fetch(url, {
            method: c.method,
            headers: { "content-type": "application/json", "a2a-version": "1.0" },
            body,
            signal: AbortSignal.timeout(10_000),
          });
          const text = await res.text();
          if (res.status >= 500) throw new Error(`${where}: HTTP ${res.status}: ${text.slice(0, 300)}`);
          const leak = leakIn(text);
          if (leak) throw new Error(`${where}: leaks ${leak}: ${text.slice(0, 300)}`);
          if (res.status === 200 && text.startsWith("{")) checkIds({ result: JSON.parse(text) }, where);
          failIfLogged(where);
        };
        const segment = (v: unknown) => encodeURIComponent(typeof v === "string" ? v : JSON.stringify(v));
        for (const [i, c] of restCases(targets).entries()) {
          for (const [j, name] of Object.keys(c.path).entries()) {
            const raw = ["%E0%A4%A", "%", "..", "%2F", "x".repeat(300)];
            for (const value of [...raw, ...SPECIAL_VALUES.map(segment), ...randomValues(FUZZ_SEED + i * 1000 + 900 + j).map(segment)]) {
              await call(c, { ...c.path, [name]: value }, c.params, `${kind} REST ${c.name} {${name}} = ${value.slice(0, 60)}`);
            }
          }
          const paths = [...fieldPaths(c.params), ...STRAY_MEMBERS.filter((m) => !(m in c.params)).map((m) => [m])];
          for (const [j, path] of paths.entries()) {
            for (const value of [...SPECIAL_VALUES, ...randomValues(FUZZ_SEED + i * 1000 + j)]) {
              await call(c, c.path, withField(c.params, path, value), `${kind} REST ${c.name} ${path.join(".")} = ${JSON.stringify(value)?.slice(0, 60)}`);
            }
          }
        }
      },
      TIMEOUT_MS,
    );

    test(
      "what is stored stays readable: every task's push configs, in every dialect",
      async () => {
        for (const c of rpcCases(targets).filter((x) => /pushNotification\/get|pushNotificationConfig\/list|ListTaskPushNotificationConfigs/.test(x.method))) {
          await callRpc(c, c.params, `${kind} ${c.method} after the fuzz`);
        }
        const list = (await rpc("ListTasks", { pageSize: 100 }, "1.0")) as { result?: { tasks: Array<{ id: string }> } };
        expect(list.result?.tasks.length).toBeGreaterThan(3);
        for (const task of list.result!.tasks) {
          await callRpc(
            { kind: "rpc", method: "ListTaskPushNotificationConfigs", a2aVersion: "1.0", params: {} },
            { taskId: task.id },
            `${kind} push configs of ${task.id}`,
          );
          await callRpc({ kind: "rpc", method: "GetTask", a2aVersion: "1.0", params: {} }, { id: task.id }, `${kind} task ${task.id}`);
        }
        expect(requests).toBeGreaterThan(1000);
      },
      TIMEOUT_MS,
    );
  });
}
