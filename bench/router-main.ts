/**
 * The router as the bench runs it: a real child process, configured like `a2a-router serve` (file < env <
 * flags: `--store SPEC`), plus one hosted agent of the bench's own, `count`, which streams as many working
 * statuses as its message's text says, then completes. Routers run as children so the RSS measured is the
 * router's alone and nothing of the load generator runs on its event loop.
 */
import { writeFileSync } from "node:fs";
import { Session } from "node:inspector";
import { monitorEventLoopDelay, performance } from "node:perf_hooks";
import { getHeapSpaceStatistics } from "node:v8";
import { configFromEnv, resolveConfig } from "../router/config/load.js";
import type { AgentConnector } from "../router/core/agent.js";
import { agentText, textOf, type AgentUpdate } from "../router/core/model.js";
import { createLogger } from "../router/observability/logger.js";
import { SchemaRegistry } from "../router/schema/validator.js";
import { startRouter } from "../router/server.js";

const count: AgentConnector = {
  info: { id: "count", name: "count", description: "streams N statuses", transport: "hosted", streaming: true, skills: [] },
  isOnline: () => true,
  async *execute(ctx): AsyncGenerator<AgentUpdate> {
    const n = Number(textOf(ctx.message)) || 1;
    for (let i = 1; i <= n; i++) yield { kind: "status", status: { state: "working", message: agentText(String(i)) }, final: false };
    yield { kind: "status", status: { state: "completed", message: agentText("done") }, final: true };
  },
};

const at = process.argv.indexOf("--store");
const store = at > 0 ? process.argv[at + 1] : "memory";
const schemas = new SchemaRegistry();
const resolved = resolveConfig(schemas, { env: configFromEnv(process.env), flags: { port: 0, host: "127.0.0.1", store } });
// Every client of the bench comes from one loopback address, and the idle scenario holds 10,000 streams and
// an agent: the connection bounds (limits.maxConnections, and maxConnectionsPerAddress, half of it by default)
// would refuse the bench's own load from the 5,001st stream on.
const config = { ...resolved, limits: { ...resolved.limits, maxConnections: 100_000, maxConnectionsPerAddress: 100_000 } };
const router = await startRouter({ config, logger: createLogger(), schemas, hostedAgents: [count], eliza: false });
const stop = () => void router.close().then(() => process.exit(0));
process.on("SIGTERM", stop);
process.on("SIGINT", stop);

// BENCH_MEMORY_TRACE=ms: the router's memory by kind on stderr (shown with BENCH_VERBOSE), to find what grows.
const traceMs = Number(process.env.BENCH_MEMORY_TRACE ?? 0);
if (traceMs > 0) {
  const mb = (n: number): string => (n / 1048576).toFixed(0);
  setInterval(() => {
    const m = process.memoryUsage();
    const spaces = getHeapSpaceStatistics()
      .filter((s) => s.space_size > 1048576)
      .map((s) => `${s.space_name.replace("_space", "")} ${mb(s.space_used_size)}/${mb(s.space_size)}`)
      .join(" ");
    process.stderr.write(
      `memory t ${(performance.now() / 1000).toFixed(1)} rss ${mb(m.rss)} heapUsed ${mb(m.heapUsed)} heapTotal ${mb(m.heapTotal)} external ${mb(m.external)} arrayBuffers ${mb(m.arrayBuffers)} | ${spaces}\n`,
    );
  }, traceMs).unref();
}

// BENCH_LOOP_TRACE=ms: the router's event-loop delay and utilization per interval on stderr (BENCH_VERBOSE),
// to tell a busy loop from a waiting one.
const loopMs = Number(process.env.BENCH_LOOP_TRACE ?? 0);
if (loopMs > 0) {
  const delay = monitorEventLoopDelay({ resolution: 1 });
  delay.enable();
  let elu = performance.eventLoopUtilization();
  setInterval(() => {
    const now = performance.eventLoopUtilization(elu);
    elu = performance.eventLoopUtilization();
    const ms = (ns: number): string => (ns / 1e6).toFixed(1);
    process.stderr.write(
      `loop t ${(performance.now() / 1000).toFixed(1)} util ${(now.utilization * 100).toFixed(0)}% delay p50 ${ms(delay.percentile(50))} p99 ${ms(delay.percentile(99))} max ${ms(delay.max)}\n`,
    );
    delay.reset();
  }, loopMs).unref();
}

// BENCH_ALLOC_PROFILE=path: a sampling allocation profile of the router's whole life (objects a scavenge freed
// included: they are what makes scavenges frequent), written to path on exit; open it in Chrome's DevTools.
const allocPath = process.env.BENCH_ALLOC_PROFILE;
if (allocPath) {
  const session = new Session();
  session.connect();
  session.post("HeapProfiler.startSampling", { samplingInterval: 4096, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true });
  process.on("exit", () => {
    session.post("HeapProfiler.stopSampling", (err, res) => {
      if (!err) writeFileSync(allocPath, JSON.stringify(res.profile));
    });
  });
}
