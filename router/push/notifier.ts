import type { Logger } from "pino";
import { isTerminal, type LoggedEvent, type PushNotificationConfig, type Task } from "../core/model.js";
import type { TaskStore } from "../core/store.js";
import { DEFAULT_PUSH_CONFIG_ID } from "../store/common.js";
import { deadline } from "../client/index.js";
import { pushBody, pushHeaders } from "./payload.js";
import { checkPushUrl, type PushUrlPolicy } from "./url-policy.js";
import { postWebhook } from "./webhook-request.js";

export interface PushNotifierOptions {
  store: TaskStore;
  logger: Logger;
  /** Tries per notification, the first included, while the webhook is healthy. */
  maxAttempts?: number;
  /** Backoff before the second try; doubled for each further try, capped by maxDelayMs. */
  baseDelayMs?: number;
  maxDelayMs?: number;
  /** Per-request timeout (the spec recommends 10-30 s). */
  timeoutMs?: number;
  /**
   * Notifications in a row a webhook may miss before it is "failing": from then on each notification
   * gets a single try until one succeeds, so a dead webhook's backlog drains in bounded time.
   */
  failingAfter?: number;
  /** Events read from the task's log per page. */
  logPageSize?: number;
  /** Tasks remembered as having no configs (saves a store read per commit), at most; the oldest half is forgotten at once. */
  negativeCacheSize?: number;
  /** Which webhook addresses may be called (SSRF); default: any (dev mode). */
  urlPolicy?: PushUrlPolicy;
}

const DEFAULTS = {
  maxAttempts: 5,
  baseDelayMs: 500,
  maxDelayMs: 30_000,
  timeoutMs: 10_000,
  failingAfter: 3,
  logPageSize: 100,
  negativeCacheSize: 10_000,
  urlPolicy: { allowPrivate: true } as PushUrlPolicy,
};

/** One webhook of one task: a cursor over the task's event log. */
interface Target {
  taskId: string;
  config: PushNotificationConfig & { id: string };
  /** seq of the last event handled (delivered or given up on). */
  cursor: number;
  /** Set by notify(): there may be events after the cursor. */
  dirty: boolean;
  wake?: () => void;
  stopped: boolean;
  missedInARow: number;
  loop?: Promise<void>;
}

export interface PushStats {
  /** Webhooks with a delivery loop (tasks not finished). */
  targets: number;
  delivered: number;
  /** Notifications given up on after their last try. */
  failed: number;
}

/**
 * Push notifications: stores each task's webhook configs and POSTs every task update to them.
 *
 * The task's event log is the queue. Each webhook is a cursor that reads the log after its last delivered
 * event and POSTs in order, retrying with exponential backoff; `notify` (called with every committed
 * batch) only wakes cursors. So a slow or dead webhook never slows the task, the agent or other streams,
 * nothing is buffered in memory per event, and a webhook configured after events were logged catches up
 * from the log.
 */
export class PushNotifier {
  #opts: PushNotifierOptions & typeof DEFAULTS;
  #store: TaskStore;
  #log: Logger;
  /** taskId -> configId -> target */
  #targets = new Map<string, Map<string, Target>>();
  /** Tasks whose configs are being read from the store after a restart. */
  #loading = new Map<string, Promise<void>>();
  /**
   * Tasks known to have no configs, in two generations: when the newer holds half the bound, the older is
   * dropped whole. Evicting the oldest of one Set one at a time cost ~10 µs per new task (V8 skips every
   * deleted entry to find the first live one).
   */
  #none = new Set<string>();
  #noneOlder = new Set<string>();
  #timers = new Set<{ timer: NodeJS.Timeout; resolve: () => void }>();
  #abort = new AbortController();
  #closed = false;
  #delivered = 0;
  #failed = 0;

  constructor(options: PushNotifierOptions) {
    this.#opts = { ...DEFAULTS, ...options, urlPolicy: options.urlPolicy ?? DEFAULTS.urlPolicy };
    this.#store = options.store;
    this.#log = options.logger;
  }

  /**
   * Saves a config (one without `id` is the task's "default") and starts delivering to it: the events
   * logged after `afterSeq` (send/stream pass the turn's start, so a config given with the message gets
   * the whole turn), else only events logged from now on.
   */
  async set(taskId: string, config: PushNotificationConfig, afterSeq?: number): Promise<PushNotificationConfig> {
    await checkPushUrl(config.url, this.#opts.urlPolicy);
    const saved = { ...config, id: config.id ?? DEFAULT_PUSH_CONFIG_ID };
    await this.#store.setPushConfig(taskId, saved);
    const cursor = afterSeq ?? (await this.#store.getTask(taskId))?.lastSeq ?? 0;
    this.#none.delete(taskId);
    this.#noneOlder.delete(taskId);
    this.#start(taskId, saved, cursor, true);
    return { ...saved };
  }

  list(taskId: string): Promise<PushNotificationConfig[]> {
    return this.#store.getPushConfigs(taskId);
  }

  /** Removes a config; nothing more is sent to it. Deleting twice is fine (spec 3.1.10). */
  async delete(taskId: string, configId: string): Promise<void> {
    await this.#store.deletePushConfig(taskId, configId);
    this.#stop(taskId, configId);
  }

  /**
   * Engine observer hook: a task this router has just created. Its configs can only be set once it exists,
   * through set(), so its commits need not look for configs in the store.
   */
  created(taskId: string): void {
    if (!this.#targets.has(taskId)) this.#rememberNone(taskId);
  }

  /** Engine observer hook: wakes the webhooks of the tasks in a committed batch. Returns at once. */
  notify(events: LoggedEvent[]): void {
    if (this.#closed) return;
    const firstSeq = new Map<string, number>();
    for (const e of events) if (!firstSeq.has(e.taskId)) firstSeq.set(e.taskId, e.seq);
    for (const [taskId, seq] of firstSeq) {
      const targets = this.#targets.get(taskId);
      if (targets) {
        for (const t of targets.values()) this.#wake(t);
      } else if (!this.#none.has(taskId) && !this.#noneOlder.has(taskId) && !this.#loading.has(taskId)) {
        // Configs set by an earlier run (a task resumed after a restart): read them once.
        const loading = this.#load(taskId, seq - 1).finally(() => this.#loading.delete(taskId));
        this.#loading.set(taskId, loading);
      }
    }
  }

  stats(): PushStats {
    let targets = 0;
    for (const m of this.#targets.values()) targets += m.size;
    return { targets, delivered: this.#delivered, failed: this.#failed };
  }

  /** Stops delivering: aborts requests in flight, cancels backoffs, waits for every loop to end. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#abort.abort();
    for (const t of [...this.#timers]) {
      clearTimeout(t.timer);
      t.resolve();
    }
    this.#timers.clear();
    const loops: Promise<void>[] = [];
    for (const targets of this.#targets.values()) {
      for (const t of targets.values()) {
        t.stopped = true;
        this.#wake(t);
        if (t.loop) loops.push(t.loop);
      }
    }
    await Promise.allSettled([...loops, ...this.#loading.values()]);
    this.#targets.clear();
  }

  async #load(taskId: string, cursor: number): Promise<void> {
    try {
      const configs = await this.#store.getPushConfigs(taskId);
      if (configs.length === 0) return this.#rememberNone(taskId);
      for (const c of configs) this.#start(taskId, { ...c, id: c.id ?? DEFAULT_PUSH_CONFIG_ID }, cursor, false);
    } catch (err) {
      this.#log.warn({ err, task: taskId }, "could not read push configs");
    }
  }

  #rememberNone(taskId: string): void {
    this.#none.add(taskId);
    if (this.#none.size < this.#opts.negativeCacheSize / 2) return;
    this.#noneOlder = this.#none;
    this.#none = new Set();
  }

  /** Starts (or, when `replace`, restarts) the delivery loop of one config. */
  #start(taskId: string, config: Target["config"], cursor: number, replace: boolean): void {
    if (this.#closed) return;
    let targets = this.#targets.get(taskId);
    if (!targets) this.#targets.set(taskId, (targets = new Map()));
    if (targets.has(config.id)) {
      if (!replace) return;
      this.#stop(taskId, config.id);
      targets = this.#targets.get(taskId) ?? new Map();
      this.#targets.set(taskId, targets);
    }
    const target: Target = { taskId, config, cursor, dirty: true, stopped: false, missedInARow: 0 };
    targets.set(config.id, target);
    target.loop = this.#run(target).catch((err) => this.#log.error({ err, task: taskId }, "push delivery loop failed"));
  }

  #stop(taskId: string, configId: string): void {
    const targets = this.#targets.get(taskId);
    const t = targets?.get(configId);
    if (!t) return;
    t.stopped = true;
    this.#wake(t);
    targets!.delete(configId);
    if (targets!.size === 0) this.#targets.delete(taskId);
  }

  #wake(t: Target): void {
    t.dirty = true;
    const wake = t.wake;
    t.wake = undefined;
    wake?.();
  }

  /** Delivers the log after the cursor, in order, then sleeps until woken; ends once the task is finished. */
  async #run(t: Target): Promise<void> {
    let finished = false;
    while (!t.stopped && !this.#closed) {
      t.dirty = false;
      const events = await this.#store.readEvents(t.taskId, t.cursor, this.#opts.logPageSize);
      if (events.length === 0) {
        if (finished || (await this.#taskFinished(t))) break;
        if (!t.dirty && !t.stopped && !this.#closed) await new Promise<void>((resolve) => (t.wake = resolve));
        continue;
      }
      for (const event of events) {
        if (t.stopped || this.#closed) return;
        await this.#deliver(t, event);
        t.cursor = event.seq;
        if (event.kind === "status" && event.final && isTerminal(event.status.state)) finished = true;
      }
    }
    if (this.#targets.get(t.taskId)?.get(t.config.id) === t) this.#stop(t.taskId, t.config.id);
  }

  async #taskFinished(t: Target): Promise<boolean> {
    const task = await this.#store.getTask(t.taskId);
    return !task || (isTerminal(task.status.state) && task.lastSeq <= t.cursor);
  }

  /** POSTs one event, retrying with backoff; false when given up on. */
  async #deliver(t: Target, event: LoggedEvent): Promise<boolean> {
    const task: Task | undefined = await this.#store.getTask(t.taskId);
    if (!task) return false;
    const { body, contentType } = pushBody(event, task);
    const headers = { "Content-Type": contentType, ...pushHeaders(t.config) };
    const attempts = t.missedInARow >= this.#opts.failingAfter ? 1 : this.#opts.maxAttempts;
    let reason = "";
    for (let attempt = 1; attempt <= attempts; attempt++) {
      if (t.stopped || this.#closed) return false;
      const limit = deadline(this.#opts.timeoutMs, this.#abort.signal);
      try {
        const status = await postWebhook({ url: t.config.url, headers, body, signal: limit.signal, policy: this.#opts.urlPolicy });
        if (status >= 200 && status < 300) {
          t.missedInARow = 0;
          this.#delivered++;
          return true;
        }
        reason = status >= 300 && status < 400 ? `HTTP ${status} (redirects are not followed)` : `HTTP ${status}`;
      } catch (err) {
        reason = (err as Error).message;
      } finally {
        limit.clear();
      }
      if (attempt < attempts) await this.#sleep(Math.min(this.#opts.maxDelayMs, this.#opts.baseDelayMs * 2 ** (attempt - 1)));
    }
    t.missedInARow++;
    this.#failed++;
    this.#log.warn({ task: t.taskId, config: t.config.id, url: t.config.url, seq: event.seq, attempts, reason }, "push notification not delivered");
    return false;
  }

  /** A backoff that close() cuts short (and that does not start once closed). */
  #sleep(ms: number): Promise<void> {
    if (this.#closed) return Promise.resolve();
    return new Promise((resolve) => {
      const entry = {
        timer: setTimeout(() => {
          this.#timers.delete(entry);
          resolve();
        }, ms),
        resolve,
      };
      this.#timers.add(entry);
    });
  }
}
