import { afterAll, beforeAll, describe, expect, test } from "@jest/globals";
import { pino } from "pino";
import { Writable } from "node:stream";
import type { RunningRouter } from "../../router/index.js";
import type { Task } from "../../router/core/model.js";
import { checkPushUrl, connectLookup, isPublicAddress, PushNotifier } from "../../router/push/index.js";
import { MemoryStore } from "../../router/store/index.js";
import { testRouter } from "../helpers/router.js";
import { WebhookReceiver } from "../push/webhook.js";
import { rpc, userMessage } from "../helpers/rpc.js";

/** Webhook URLs and SSRF (CONTRACT 12): refused at set time after DNS, and on every delivery connection. */

describe("isPublicAddress", () => {
  test.each([
    "127.0.0.1",
    "127.1.2.3",
    "10.0.0.1",
    "172.16.5.4",
    "192.168.1.1",
    "169.254.169.254",
    "100.64.0.1",
    "0.0.0.0",
    "255.255.255.255",
    "224.0.0.1",
    "192.0.2.1",
    "198.18.0.1",
    "::1",
    "::",
    "fe80::1",
    "fc00::1",
    "fd12:3456::1",
    "ff02::1",
    "::ffff:127.0.0.1",
    "::ffff:10.0.0.1",
    "64:ff9b::7f00:1",
    "2002:7f00:1::",
    "2001::1",
    "not-an-ip",
  ])("%s is not public", (a) => expect(isPublicAddress(a)).toBe(false));

  test.each(["8.8.8.8", "93.184.216.34", "1.1.1.1", "2606:4700:4700::1111", "::ffff:8.8.8.8"])("%s is public", (a) => expect(isPublicAddress(a)).toBe(true));
});

describe("checkPushUrl", () => {
  const names: Record<string, string[]> = {
    "public.example": ["93.184.216.34", "2606:2800:220:1::1"],
    "mixed.example": ["93.184.216.34", "10.0.0.5"],
    "internal.example": ["192.168.0.10"],
    "metadata.example": ["169.254.169.254"],
  };
  const resolve = async (host: string) => {
    const a = names[host];
    if (!a) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: "ENOTFOUND" });
    return a;
  };
  const strict = { allowPrivate: false, resolve };

  test("a host whose every address is public passes", async () => {
    await expect(checkPushUrl("https://public.example/hook", strict)).resolves.toBeUndefined();
    await expect(checkPushUrl("http://93.184.216.34:8080/x", strict)).resolves.toBeUndefined();
  });

  test.each([
    "http://127.0.0.1/x",
    "http://localhost.:1/x",
    "http://[::1]:80/x",
    "http://[::ffff:127.0.0.1]/x",
    "http://0x7f000001/x",
    "http://2130706433/x",
    "http://10.1.1.1/x",
    "http://169.254.169.254/latest/meta-data",
    "http://internal.example/x",
    "http://metadata.example/x",
    "http://mixed.example/x",
    "http://[fd00::1]/x",
    "http://0.0.0.0:8080/x",
  ])("%s is refused with -32602 naming the field", async (url) => {
    await expect(checkPushUrl(url, strict)).rejects.toMatchObject({ reason: "invalid-params", data: { field: "pushNotificationConfig.url" } });
  });

  test("a host that does not resolve, and non-http schemes, are refused", async () => {
    await expect(checkPushUrl("http://nowhere.example/x", strict)).rejects.toThrow(/does not resolve/);
    await expect(checkPushUrl("file:///etc/passwd", strict)).rejects.toThrow(/must be http\(s\)/);
    await expect(checkPushUrl("gopher://public.example/", { allowPrivate: true })).rejects.toThrow(/must be http\(s\)/);
  });

  test("allowPrivate (dev mode, push.allowPrivateUrls) lets private addresses through without DNS", async () => {
    await expect(checkPushUrl("http://127.0.0.1:1/x", { allowPrivate: true })).resolves.toBeUndefined();
    await expect(
      checkPushUrl("http://internal.example/x", { allowPrivate: true, resolve: () => Promise.reject(new Error("no DNS wanted")) }),
    ).resolves.toBeUndefined();
  });

  test("the connection lookup hands a socket only public addresses", async () => {
    const lookup = connectLookup(strict)!;
    const call = (host: string, all: boolean) =>
      new Promise<unknown>((res, rej) =>
        (lookup as any)(host, { all }, (err: Error | null, a: unknown, f?: number) => (err ? rej(err) : res(all ? a : [a, f]))),
      );
    await expect(call("public.example", true)).resolves.toEqual([
      { address: "93.184.216.34", family: 4 },
      { address: "2606:2800:220:1::1", family: 6 },
    ]);
    await expect(call("public.example", false)).resolves.toEqual(["93.184.216.34", 4]);
    await expect(call("mixed.example", true)).rejects.toThrow(/non-public/);
    expect(connectLookup({ allowPrivate: true })).toBeUndefined();
  });
});

describe("delivery", () => {
  let hooks: WebhookReceiver;
  let store: MemoryStore;
  beforeAll(async () => {
    hooks = await new WebhookReceiver().start();
    store = new MemoryStore();
  });
  afterAll(async () => {
    await hooks.stop();
    await store.close();
  });

  /** A logger whose warnings resolve `warned` (the notifier logs each notification it gives up on). */
  function watchedLogger() {
    let onWarn!: (line: any) => void;
    const warned = new Promise<any>((r) => (onWarn = r));
    const sink = new Writable({
      write(chunk, _enc, cb) {
        const line = JSON.parse(String(chunk));
        if (line.level === 40) onWarn(line);
        cb();
      },
    });
    return { logger: pino({ level: "warn" }, sink), warned };
  }

  async function taskWithEvent(id: string): Promise<Task> {
    const now = new Date().toISOString();
    const task: Task = {
      id,
      contextId: `c-${id}`,
      agentId: "echo",
      dialect: "v0.1",
      status: { state: "completed", timestamp: now },
      artifacts: [],
      history: [],
      metadata: {},
      createdAt: now,
      updatedAt: now,
      lastSeq: 1,
    };
    await store.commit({
      tasks: [task],
      events: [{ taskId: id, contextId: task.contextId, seq: 1, kind: "status", status: task.status, final: true } as never],
    });
    return task;
  }

  test("DNS rebinding: a name that was public when set and resolves to loopback at delivery is not called", async () => {
    const port = new URL(hooks.url).port;
    let answers = 0;
    // First answer (set time): public. Every later one (the connection): the receiver's loopback address.
    const resolve = async () => (answers++ === 0 ? ["93.184.216.34"] : ["127.0.0.1"]);
    const { logger, warned } = watchedLogger();
    const notifier = new PushNotifier({ store, logger, maxAttempts: 1, urlPolicy: { allowPrivate: false, resolve } });
    try {
      const task = await taskWithEvent("rebind-1");
      await notifier.set(task.id, { url: `http://rebind.example:${port}/rebind` }, 0);
      const line = await warned;
      expect(line.reason).toMatch(/non-public address/);
      expect(hooks.deliveries.filter((d) => d.path === "/rebind")).toHaveLength(0);
    } finally {
      await notifier.close();
    }
  });

  test("redirects are not followed", async () => {
    hooks.respond = (path) => (path === "/redirect" ? 302 : 200);
    const { logger, warned } = watchedLogger();
    const notifier = new PushNotifier({ store, logger, maxAttempts: 1, urlPolicy: { allowPrivate: true } });
    try {
      const task = await taskWithEvent("redirect-1");
      await notifier.set(task.id, { url: `${hooks.url}/redirect` }, 0);
      expect((await warned).reason).toBe("HTTP 302 (redirects are not followed)");
      expect(hooks.deliveries.map((d) => d.path)).toEqual(["/redirect"]);
    } finally {
      await notifier.close();
      hooks.respond = () => 200;
    }
  });
});

describe("on the router", () => {
  let keyed: RunningRouter;
  let allowed: RunningRouter;
  let dev: RunningRouter;
  let hooks: WebhookReceiver;
  const auth = { headers: { authorization: "Bearer k" } };
  beforeAll(async () => {
    hooks = await new WebhookReceiver().start();
    keyed = await testRouter({ eliza: false, config: { apiKeys: ["k"] } });
    allowed = await testRouter({ eliza: false, config: { apiKeys: ["k"], push: { allowPrivateUrls: true } } });
    dev = await testRouter({ eliza: false });
  });
  afterAll(async () => {
    await Promise.all([keyed.close(), allowed.close(), dev.close()]);
    await hooks.stop();
  });

  test("with API keys, a loopback webhook is refused in every dialect with -32602 naming the field", async () => {
    const v01 = await rpc(
      keyed.url,
      "tasks/send",
      { id: "ssrf-1", message: userMessage("x"), metadata: { agent: "echo" }, pushNotification: { url: `${hooks.url}/a` } },
      auth,
    );
    expect(v01.error).toMatchObject({ code: -32602, data: { field: "pushNotificationConfig.url" } });
    await rpc(keyed.url, "tasks/send", { id: "ssrf-2", message: userMessage("x"), metadata: { agent: "echo" } }, auth);
    const set = await rpc(keyed.url, "tasks/pushNotification/set", { id: "ssrf-2", pushNotificationConfig: { url: "http://169.254.169.254/latest" } }, auth);
    expect(set.error).toMatchObject({ code: -32602, data: { field: "pushNotificationConfig.url" } });
    expect(set.error.message).toMatch(/push.allowPrivateUrls/);
  });

  test("push.allowPrivateUrls and dev mode (loopback bind, no keys) allow it", async () => {
    const a = await rpc(
      allowed.url,
      "tasks/send",
      { id: "ok-1", message: userMessage("x"), metadata: { agent: "echo" }, pushNotification: { url: `${hooks.url}/allowed` } },
      auth,
    );
    expect(a.result.status.state).toBe("completed");
    await hooks.waitFor("/allowed", 1);
    const d = await rpc(dev.url, "tasks/send", {
      id: "ok-2",
      message: userMessage("x"),
      metadata: { agent: "echo" },
      pushNotification: { url: `${hooks.url}/dev` },
    });
    expect(d.result.status.state).toBe("completed");
    await hooks.waitFor("/dev", 1);
  });
});
